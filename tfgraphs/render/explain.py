"""Render an explain report: the ablation table, the attribution, and what ran (no TensorFlow here)."""

from tabulate import tabulate

from tfgraphs.explain.explain import sentences
from tfgraphs.records.attribution import LABELS, PARTS, share
from tfgraphs.render.compare import header
from tfgraphs.render.owngraph import graph_header
from tfgraphs.render.page import failures, page, time_unit
from tfgraphs.spec.presets import PRESETS

TOP_OPS = 5


def ablation_table(report, fmt):
    """First run, median later run and excess per variant x preset, in one time unit."""
    ok = [r for r in report.rows if r.ok]
    unit = time_unit([v for r in ok for v in (r.first_run_s, *r.runs_s)])
    u, scale = unit
    body = []
    for r in ok:
        e = r.first_run_excess_s
        body.append([r.variant, r.preset, r.first_run_s / scale, r.later_median_s / scale, e / scale,
                     r.graph_bytes])
    headers = ["variant", "preset", f"first run {u}", f"later median {u}", f"excess {u}", "graph bytes"]
    legend = (f"Times in {u}, from timed workers only (traces are taken in separate workers). excess = first run - "
              f"median later run. Presets: " + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()) + ".")
    return tabulate(body, headers, tablefmt=fmt, floatfmt=".3f", intfmt=","), legend


def attribution_table(report, fmt):
    """Each embedded variant's excess split into parts, in seconds and % of the excess."""
    body = []
    for a in report.extra.get("attribution", []):
        total = a["excess_s"]
        row = [a["variant"], None if total is None else f"{total:.3f}"]
        for k in PARTS:
            pct = share(a[k], total)
            row.append(None if a[k] is None else f"{a[k]:.3f}" + ("" if pct is None else f" ({pct:.0f}%)"))
        body.append(row)
    headers = ["variant", "excess s", *(f"{LABELS[k]} s" for k in PARTS)]
    legend = ("Grappler = excess(default) - excess(no-grappler); constant folding = excess(default) - "
              "excess(no-folding); the rest = excess(bare); interaction = excess - the three parts (not zero when "
              "the presets overlap).")
    return tabulate(body, headers, tablefmt=fmt, floatfmt=".3f", missingval="-", disable_numparse=True), legend


def ops_table(report, fmt):
    """The slowest ops of each variant's traced first and second run, under each preset."""
    body = []
    for r in report.rows:
        for op in r.top_ops[:TOP_OPS]:
            body.append([r.variant, r.preset, op["op"], op["type"], op["first_ms"], op["later_ms"]])
    headers = ["variant", "preset", "op", "type", "first run ms", "later run ms"]
    legend = (f"Up to {TOP_OPS} ops per row from FULL_TRACE step stats, slowest first; '-' = the op did not run in "
              f"that run. Op time is what the executor spent in the op, not the run's wall time.")
    return tabulate(body, headers, tablefmt=fmt, floatfmt=".3f", missingval="-"), legend


def render(report, fmt="simple"):
    """The whole explain report as text."""
    head = graph_header(report) if "graph" in report.config else header(report)
    ok = any(r.ok for r in report.rows)
    sections = [("First run vs later runs, per session preset", ablation_table(report, fmt))] if ok else []
    if ok and report.extra.get("attribution"):
        sections.append(("Where the first run's excess goes", attribution_table(report, fmt)))
    if ok and any(r.top_ops for r in report.rows):
        sections.append(("What ran (traced runs)", ops_table(report, fmt)))
    return page(head, sections, "What this run shows:" if ok else None, sentences(report) if ok else (),
                failures(report.rows, lambda r: r.label))
