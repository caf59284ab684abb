"""Render a compare report: phases, the "why" ratios, memory per phase, and what they show (no TensorFlow here)."""

from tabulate import tabulate

from dataclasses import replace

from tfgraphs.explain.compare import PHASES, copies_rows, sentences, why_rows
from tfgraphs.explain.remote import has_remote
from tfgraphs.explain.remote import sentences as remote_sentences
from tfgraphs.records.stats import Summary
from tfgraphs.render.page import failures, machine_line, page, time_unit
from tfgraphs.render.remote import remote_table
from tfgraphs.units import fmt_bytes


def _t(value, unit):
    return None if value is None else value / unit[1]


def _x(value, digits=2):
    return None if value is None else round(value, digits)


def header(report):
    """One line naming what ran and where."""
    c = report.config
    trials = c.get("trials", 1)
    return (f"{report.command}: batch {c['batch']:,}, {c['dtype']}, {c['runs']} later runs x {trials} "
            f"trial{'s' if trials != 1 else ''}, seed {c.get('seed', 0)}"
            + (f", --target {c['target']}" if c.get("target") else "") + f" | {machine_line(report)}")


def phase_table(report, fmt):
    """Phase timings, sizes and memory per variant, in one time unit."""
    ok = [r for r in report.rows if r.ok]
    times = [v for r in ok for v in (r.build_s, r.serialize_s, r.session_s, r.init_s, r.first_run_s, *r.runs_s)]
    unit = time_unit(times)
    u = unit[0]
    headers = ["variant", "graph bytes", "nodes", "const bytes", f"build {u}", f"serialize {u}", f"session {u}",
               f"init {u}",
               f"first run {u}", f"later min {u}", f"later median {u}", f"later max {u}", "n", "peak RSS", "max abs err"]
    body = []
    for r in ok:
        s = Summary.of(r.runs_s)
        body.append([r.variant, r.graph_bytes, r.nodes, r.const_bytes, _t(r.build_s, unit),
                     _t(r.serialize_s, unit), _t(r.session_s, unit),
                     _t(r.init_s, unit), _t(r.first_run_s, unit), _t(s.min, unit), _t(s.median, unit),
                     _t(s.max, unit), s.n, fmt_bytes(r.peak_rss_bytes), f"{r.max_abs_err:.1e}"])
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", floatfmt=".3f", missingval="-",
                     disable_numparse=[len(headers) - 1])
    legend = (f"Times in {u}, each phase timed alone with perf_counter in a fresh worker per variant; serialize = "
              f"GraphDef to bytes, timed after the runs; later = the runs after the first (min/median/max over n). "
              f"graph bytes = serialized GraphDef; const bytes = bytes "
              f"held in Const tensors; peak RSS = the worker's peak resident memory; max abs err = largest "
              f"difference from the NumPy reference.")
    return table, legend


def why_table(report, fmt):
    """The "why" table: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    headers = ["variant", "embedded bytes", "graph / data", "max batch < 2 GiB", "first / later", "peak RSS / data"]
    body = [[r["variant"], r["embedded_bytes"], f"{r['graph_over_data']:.4f}",
             "no limit" if r["max_batch"] is None else f"{r['max_batch']:,}",
             _x(r["first_over_later"], 1), _x(r["peak_over_data"], 1)] for r in why_rows(report)]
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", floatfmt=".1f", missingval="-",
                     disable_numparse=[2, 3], colalign=("left", "right", "right", "right", "right", "right"))
    legend = ("data = the bytes of X; max batch = the largest batch whose GraphDef stays under 2 GiB, from this "
              "run's bytes per example (no limit when X is not in the graph); first / later = first run over the "
              "median later run.")
    return table, legend


def copies_table(report, fmt):
    """Resident memory each phase added, in copies of X."""
    rows = copies_rows(report)
    phases = [p for p in PHASES if any(r[p] is not None for r in rows)]
    headers = ["variant", *(p.replace("_", " ") for p in phases), "peak"]
    body = [[r["variant"], *(_x(r[p], 2) for p in phases), _x(r["peak"], 1)] for r in rows]
    table = tabulate(body, headers, tablefmt=fmt, missingval="-")
    legend = ("Growth of the worker's resident memory during each phase divided by the bytes of X (1.00 = one more "
              "copy of the data); peak = peak resident memory / bytes of X, TensorFlow's own footprint included.")
    return table, legend


def render(report, fmt="simple"):
    """The whole compare report as text; rows measured remotely or fetching a sum get a section of their own."""
    head = header(report)
    if has_remote(report):
        return _with_remote(report, head, fmt)
    ok = any(r.ok for r in report.rows)
    sections = [("Phases", phase_table(report, fmt)), ("Why", why_table(report, fmt)),
                ("Memory: copies of X added per phase", copies_table(report, fmt))] if ok else []
    return page(head, sections, "What this run shows:" if ok else None,
                sentences(report) if ok else (), failures(report.rows, lambda r: r.label))


def _with_remote(report, head, fmt):
    """The in-process page of the rows fetching the whole output, then the remote section and its sentences."""
    local = replace(report, rows=tuple(r for r in report.rows if not r.remote and r.fetch != "sum"))
    text = render(local, fmt).split("\n", 1)[1] if local.rows else ""
    ok = any(r.ok for r in report.rows)
    remote = page(head, [("Remote sessions", remote_table(report, fmt))] if ok else [],
                  "What the remote runs show:" if ok else None, remote_sentences(report) if ok else (),
                  failures([r for r in report.rows if r not in local.rows], lambda r: r.label))
    return remote.rstrip("\n") + "\n" + text

