"""Render a sweep report: every batch x variant, the fitted lines, and what TensorFlow said at the limit."""

from tabulate import tabulate

from tfgraphs.explain.sweep import PEAK_SPAN_BYTES, peak_copies, sentences
from tfgraphs.records.fits import fits
from tfgraphs.records.stats import ratio
from tfgraphs.render.page import failures, machine_line, page, time_unit
from tfgraphs.spec import limits, network
from tfgraphs.units import fmt_bytes


def header(report):
    """One line naming what ran and where."""
    c = report.config
    batches, trials = c["batches"], c.get("trials", 1)
    return (f"sweep: batches {', '.join(f'{b:,}' for b in batches)}, {c['dtype']}, {c['runs']} later runs x {trials} "
            f"trial{'s' if trials != 1 else ''}, seed {c.get('seed', 0)} | {machine_line(report)}")


def points_table(report, fmt):
    """Graph bytes, first run, median later run and peak memory per variant x batch, in one time unit."""
    order = {v: i for i, v in enumerate(report.config["variants"])}
    ok = sorted((r for r in report.rows if r.ok), key=lambda r: (order.get(r.variant, 0), r.batch))
    u, scale = time_unit([t for r in ok for t in (r.first_run_s, *r.runs_s)])
    body = []
    for r in ok:
        later = r.later_median_s
        body.append([r.variant, r.batch, network.data_bytes(r.batch, report.config["dtype"]), r.graph_bytes,
                     r.first_run_s / scale, later / scale, ratio(r.first_run_s, later), fmt_bytes(r.peak_rss_bytes)])
    headers = ["variant", "batch", "data bytes", "graph bytes", f"first run {u}", f"later median {u}",
               "first / later", "peak RSS"]
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", floatfmt=(None, None, None, None, ".3f", ".3f", ".1f"),
                     missingval="-")
    legend = (f"Times in {u}; each point is a fresh worker (the median when there are several trials). data bytes = "
              f"the bytes of X; graph bytes = the serialized GraphDef; later median = median of the runs after the "
              f"first; peak RSS = the worker's peak resident memory.")
    return table, legend


def fit_table(report, fmt):
    """The fitted line graph_bytes = a * batch + b per variant, and where it crosses 2 GiB."""
    example = network.example_bytes(report.config["dtype"])
    body = []
    for f in fits(report):
        copies = peak_copies(report, f.variant)
        body.append([f.variant, f.bytes_per_example, example, f.overhead_bytes, f.max_residual_bytes,
                     "no limit" if f.max_batch is None else f"{f.max_batch:,}", f.points,
                     None if copies is None else round(copies, 1)])
    headers = ["variant", "a: bytes / example", "H*W*C*itemsize", "b: other bytes", "largest residual",
               "max batch < 2 GiB", "points", "peak RSS / example"]
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", missingval="-", disable_numparse=[5])
    legend = ("Least squares over the measured batches, a rounded to whole bytes and b refitted for it; residual = "
              "the largest distance in bytes of a measured graph from the line. max batch = the largest N with "
              f"a*N + b < 2 GiB ({limits.GRAPHDEF_LIMIT:,} bytes). peak RSS / example = slope of peak memory against "
              "batch, in copies of one example (shown when the batches span at least "
              f"{fmt_bytes(PEAK_SPAN_BYTES)} of data).")
    return table, legend


def render(report, fmt="simple"):
    """The whole sweep report as text."""
    head, ok = header(report), any(r.ok for r in report.rows)
    sections = [("Points", points_table(report, fmt))] if ok else []
    if ok and fits(report):
        sections.append(("Graph bytes = a * batch + b", fit_table(report, fmt)))
    return page(head, sections, "What this sweep shows:" if ok else None, sentences(report) if ok else (),
                failures(report.rows, lambda r: f"batch {r.batch:,} {r.label}"))
