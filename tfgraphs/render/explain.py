"""The explain page: the ablation table, the attribution, the logged first run and what ran, headed by the seed
network's settings or by the user's graph it explained (no TensorFlow here)."""

import statistics

from tfgraphs.findings import explain as explain_findings
from tfgraphs.findings.explain import share_text
from tfgraphs.findings.explain import grouped
from tfgraphs.findings.explain import logged_spans
from tfgraphs.records.explain import LABELS, PARTS, ExplainedGraph, is_remote, part_first_runs, where
from tfgraphs.render.page import WIDTH, Table, failures, machine_line, page, time_unit
from tfgraphs.render.network import header
from tfgraphs.spec import tflog
from tfgraphs.spec.options import PRESETS
from tfgraphs.units import fmt_int, shape_text, sig3

TOP_OPS = 5
TOP_STAGES = 5   # Grappler passes per variant in the passes table; the rest are summed in one row
REMOTE = (" remote = the session ran on the --target server (a fresh one per worker for --target local), which "
          "receives the GraphDef at the first run; the rows without it ran in-process.")


def _in(value, scale):
    return sig3(None if value is None else value / scale)


def ablation_table(results):
    """First run, median later run and excess per variant x preset, in one time unit."""
    ok = [r for r in results.rows if r.ok]
    u, scale = time_unit([v for r in ok for v in (r.first_run_s, *r.runs_s)])
    rows = tuple((where(r.variant, r.remote), r.preset, _in(r.first_run_s, scale), _in(r.later_median_s, scale),
                  _in(r.first_run_excess_s, scale), fmt_int(r.graph_bytes)) for r in ok)
    legend = (f"Times in {u}, from timed workers only (traces are taken in separate workers). excess = the median "
              f"over trials of each worker's first run less its own median later run. Presets: " + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()) + "."
              + (REMOTE if any(r.remote for r in ok) else ""))
    return Table(("variant", "preset", "first run", "later median", "excess", "graph bytes"), rows, keys=2), legend, u


def attribution_table(results):
    """Each embedded variant's excess split into parts, in one time unit and % of the excess."""
    found = results.attribution
    single = results.single_thread or {}
    one = statistics.median(single["runs_s"]) if single.get("status") == "ok" and single.get("runs_s") else None
    u, scale = time_unit([a[k] and abs(a[k]) for a in found for k in ("excess_s", *PARTS)] + [one])
    rows = []
    for a in found:
        total, remote = a["excess_s"], is_remote(a, results.rows)
        cells = [where(a["variant"], remote), _in(total, scale)]
        for k in PARTS:
            pct = share_text(a[k], total, part_first_runs(results.rows, a["variant"], k, total, remote))
            cells.append(None if a[k] is None else _in(a[k], scale) + ("" if pct is None else f" ({pct})"))
        rows.append(tuple(cells) + ((_in(one, scale),) if single else ()))
    legend = (f"Times in {u}. Grappler = excess(default) - excess(no-grappler); constant folding = excess(default) - "
              "excess(no-folding), which also holds common-subexpression elimination (OptimizerOptions.L0 turns "
              "both off); the rest = excess(bare); interaction = excess - the three parts. The Grappler and constant "
              "folding parts overlap by design: Grappler's constant folding is off in both no-grappler and "
              "no-folding. A share is given only for a part that is a difference of two presets' first-run excesses, "
              "one per fresh worker: the part over the excess, without an interval (the judge's interval, in the findings, is of "
              "the part in time: the difference of those presets' first-run excesses, Hodges-Lehmann, Mann-Whitney "
              "U). With too few fresh workers a preset, the judge cannot bound that difference at its family's level, "
              "so no share is given then (the findings name the --trials it needs).")
    if single:
        legend += (" 1-thread eval = the median later run of the network (placeholder) in a session with one intra-op "
                   "and one inter-op thread, its own worker: the classic folder evaluates a constant subgraph so.")
    heads = ("variant", "excess", *(LABELS[k] for k in PARTS), *(("1-thread eval",) if single else ()))
    return Table(heads, tuple(rows)), legend, u


def stages_table(results):
    """Each default-config row's logged first run, stage by stage, timed by TensorFlow's own log lines."""
    rows = []
    for r in results.rows:
        spans = logged_spans(r) if r.preset == "default" else []
        for s in spans:
            rows.append((where(r.variant, r.remote), s["stage"], f"{s['source']} > {s['to']}",
                         sig3(s["seconds"] * 1000), f"{100 * s['seconds'] / r.logged_first_run_s:.0f}%"))
        outside = r.logged_first_run_s - sum(s["seconds"] for s in spans) if spans else 0.0
        if spans and outside >= 0.0005:
            rows.append((where(r.variant, r.remote), "outside the log's lines", "-",
                         sig3(outside * 1000), f"{100 * outside / r.logged_first_run_s:.0f}%"))
    legend = (f"Times in ms, from the times TensorFlow's log printed on its lines in one first run in an untimed "
              f"worker per variant (TF_CPP_VMODULE={tflog.VMODULE}). Each stage lies between two lines (between: "
              + "; ".join(f"{tflog.LINES[k].format(step='S')} from {f}" for k, f in tflog.LINE_FILES.items())
              + "), named for the code between them in TensorFlow's source: BuildGraph is logged as it begins, "
              "\"Optimized N functions\" as Grappler's last line, \"Added send/recv\" as Partition()'s last "
              "statement, the classic folder's count after its search, before its GraphRunner is made, and each "
              "group of optimization passes between its first line and its \"Finished optimization of a group N\". "
              "The first "
              "stage opens when session.run is called and the last ends when it returns, both marked by the worker "
              "on the same clock. % = of that first run. Step -1 is the id TensorFlow's GraphRunner gives the runs "
              "the classic constant folder makes.")
    return Table(("variant", "stage", "between", "ms", "% first run"), tuple(rows), keys=2,
                 wrap=((1, 30), (2, 24))), legend


def passes_table(results):
    """Each default-config row's Grappler passes in its logged first run, as TensorFlow timed them, summed over rounds."""
    rows = []
    for r in results.rows:
        if r.preset != "default" or not r.first_run_inside or r.logged_first_run_s is None:
            continue
        passes = [s for s in r.first_run_inside if s["seconds"] is not None]
        stages = grouped(passes)
        shown = [(stage, seconds, (stage,)) for stage, seconds in stages[:TOP_STAGES]]
        if stages[TOP_STAGES:]:
            others = dict(stages[TOP_STAGES:])
            shown.append((f"{len(others)} other passes", sum(others.values()), tuple(others)))
        for stage, seconds, names in shown:
            count = sum(s["stage"] in names for s in passes)
            changed = sum(s.get("nodes_change", 0) for s in passes if s["stage"] in names)
            rows.append((where(r.variant, r.remote), stage, count, sig3(seconds * 1000),
                         f"{100 * seconds / r.logged_first_run_s:.0f}%", f"{changed:+d}"))
    legend = ("Times in ms, as TensorFlow's meta optimizer logged each Grappler pass of the same first run with its "
              "time and the change in nodes; % = of that first run. passes = how many times the meta optimizer "
              f"logged the pass; the {TOP_STAGES} longest of each variant are shown, the others summed."
              + (" The passes run inside the Grappler stage above." if any(
                  logged_spans(r) for r in results.rows) else ""))
    return Table(("variant", "pass", "passes", "ms", "% first run", "nodes"), tuple(rows), keys=2,
                 wrap=((1, 40),)), legend


def ops_table(results):
    """The slowest ops of each variant's traced first and second run, under each preset."""
    rows = tuple((where(r.variant, r.remote), r.preset, op["op"], op["type"], sig3(op["first_ms"]),
                  sig3(op["later_ms"]))
                 for r in results.rows for op in r.top_ops[:TOP_OPS])
    legend = (f"Times in ms. Up to {TOP_OPS} ops per row from FULL_TRACE step stats, slowest first; '-' = the op did "
              f"not run in that run. Op time is what the executor spent in the op, not the run's wall time.")
    table = Table(("variant", "preset", "op", "type", "first run", "later run"), rows, keys=4, wrap=((2, 28), (3, 18)))
    return table, legend


def graph_header(results):
    """The graph, its feeds and fetches, the runs, and the machine, a line each."""
    c = results.config
    trials = c.trials
    where = c.format + (f", tag {c.tag}" if c.tag else "") + (f", signature {c.signature}" if c.signature else "")
    feeds = ", ".join(f"{i['key']} {i['dtype']} {shape_text(i['shape'])}" for i in c.inputs) or "none"
    fetches = ", ".join(o["key"] for o in c.outputs)
    return (f"explain --graph {c.graph} ({where})\nfeeds {feeds}; fetches {fetches}\n"
            f"{c.runs} later runs x {trials} trial{'s' if trials != 1 else ''}, seed {c.seed}, "
            f"integers in [0, {c.int_high})\n{machine_line(results)}")


def render(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The explain page of results, as text, fitted to width (None: one wide table per section)."""
    head = graph_header(results) if isinstance(results.config, ExplainedGraph) else header(results)
    ok = any(r.ok for r in results.rows)
    sections = []
    if ok:
        table, legend, u = ablation_table(results)
        sections.append((f"First run vs later runs, per session preset ({u})", table, legend))
    if ok and results.attribution:
        table, legend, u = attribution_table(results)
        sections.append((f"Where the first run's excess goes ({u})", table, legend))
    if ok and any(logged_spans(r) for r in results.rows):
        sections.append(("Where the first run went, as TensorFlow's log lines time it (ms)", *stages_table(results)))
    if ok and any(r.first_run_inside for r in results.rows):
        sections.append(("Grappler's passes in that first run, as TensorFlow timed them (ms)", *passes_table(results)))
    if ok and not any(r.first_run_inside or logged_spans(r) for r in results.rows) and any(
            r.first_run_log is not None for r in results.rows):
        sections.append(("Where the first run went", f"TensorFlow {results.tf_version} logged no Grappler pass or "
                         "folder line in a form this tool understands, so the first run is not broken down.", None))
    if ok and verbose and any(r.top_ops for r in results.rows):
        sections.append(("What ran (traced runs, ms)", *ops_table(results)))
    headline, findings = explain_findings.answer_and_findings(results)
    return page(head, sections, "What this run shows:" if ok else None, findings if ok else (),
                failures(results.rows, lambda r: r.label), fmt, width,
                answer=headline if ok else (), verbose=verbose, figure=figure)
