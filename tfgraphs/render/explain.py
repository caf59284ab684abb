"""Render an explain report: the ablation table, the attribution, and what ran (no TensorFlow here)."""

from tfgraphs.explain.explain import sentences
from tfgraphs.records.attribution import LABELS, PARTS, share
from tfgraphs.render.compare import header
from tfgraphs.render.owngraph import graph_header
from tfgraphs.render.page import WIDTH, failures, page, time_unit
from tfgraphs.render.table import Table
from tfgraphs.spec.presets import PRESETS
from tfgraphs.units import fmt_int, sig3

TOP_OPS = 5


def _in(value, scale):
    return sig3(None if value is None else value / scale)


def ablation_table(report):
    """First run, median later run and excess per variant x preset, in one time unit."""
    ok = [r for r in report.rows if r.ok]
    u, scale = time_unit([v for r in ok for v in (r.first_run_s, *r.runs_s)])
    rows = tuple((r.variant, r.preset, _in(r.first_run_s, scale), _in(r.later_median_s, scale),
                  _in(r.first_run_excess_s, scale), fmt_int(r.graph_bytes)) for r in ok)
    legend = (f"Times in {u}, from timed workers only (traces are taken in separate workers). excess = first run - "
              f"median later run. Presets: " + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()) + ".")
    return Table(("variant", "preset", "first run", "later median", "excess", "graph bytes"), rows, keys=2), legend, u


def attribution_table(report):
    """Each embedded variant's excess split into parts, in one time unit and % of the excess."""
    found = report.extra.get("attribution", [])
    u, scale = time_unit([a[k] and abs(a[k]) for a in found for k in ("excess_s", *PARTS)])
    rows = []
    for a in found:
        total = a["excess_s"]
        cells = [a["variant"], _in(total, scale)]
        for k in PARTS:
            pct = share(a[k], total)
            cells.append(None if a[k] is None else _in(a[k], scale) + ("" if pct is None else f" ({pct:.0f}%)"))
        rows.append(tuple(cells))
    legend = (f"Times in {u}. Grappler = excess(default) - excess(no-grappler); constant folding = excess(default) - "
              "excess(no-folding); the rest = excess(bare); interaction = excess - the three parts (not zero when "
              "the presets overlap).")
    return Table(("variant", "excess", *(LABELS[k] for k in PARTS)), tuple(rows)), legend, u


def ops_table(report):
    """The slowest ops of each variant's traced first and second run, under each preset."""
    rows = tuple((r.variant, r.preset, op["op"], op["type"], sig3(op["first_ms"]), sig3(op["later_ms"]))
                 for r in report.rows for op in r.top_ops[:TOP_OPS])
    legend = (f"Times in ms. Up to {TOP_OPS} ops per row from FULL_TRACE step stats, slowest first; '-' = the op did "
              f"not run in that run. Op time is what the executor spent in the op, not the run's wall time.")
    return Table(("variant", "preset", "op", "type", "first run", "later run"), rows, keys=4, wrap=((2, 36),)), legend


def render(report, fmt="simple", width=WIDTH):
    """The whole explain report as text, fitted to width (None: one wide table per section)."""
    head = graph_header(report) if "graph" in report.config else header(report)
    ok = any(r.ok for r in report.rows)
    sections = []
    if ok:
        table, legend, u = ablation_table(report)
        sections.append((f"First run vs later runs, per session preset ({u})", table, legend))
    if ok and report.extra.get("attribution"):
        table, legend, u = attribution_table(report)
        sections.append((f"Where the first run's excess goes ({u})", table, legend))
    if ok and any(r.top_ops for r in report.rows):
        sections.append(("What ran (traced runs, ms)", *ops_table(report)))
    return page(head, sections, "What this run shows:" if ok else None, sentences(report) if ok else (),
                failures(report.rows, lambda r: r.label), fmt, width)
