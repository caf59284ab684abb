"""Render a sweep report: every batch x variant, the fitted lines, and what TensorFlow said at the limit."""

from tfgraphs.findings.sweep import PEAK_SPAN_BYTES, peak_per_example, told
from tfgraphs.records.sweep import fits
from tfgraphs.records.stats import ratio
from tfgraphs.render.page import WIDTH, Table, failures, machine_line, page, runs_text, time_unit
from tfgraphs.spec import limits, network
from tfgraphs.units import fmt_bytes, fmt_int, sig3


def header(report):
    """What ran, then where."""
    c = report.config
    return (f"sweep: batches {', '.join(f'{b:,}' for b in c.batches)}, {c.dtype}, {runs_text(c)}, "
            f"seed {c.seed}\n{machine_line(report)}")


def _regime(row):
    return None if row.folded is None else ("yes" if row.folded else "no")


def points_table(report):
    """Graph bytes, first run, median later run and peak memory per variant x batch, in one time unit."""
    order = {v: i for i, v in enumerate(report.config.variants)}
    ok = sorted((r for r in report.rows if r.ok), key=lambda r: (order.get(r.variant, 0), r.batch))
    u, scale = time_unit([t for r in ok for t in (r.first_run_s, *r.runs_s)])
    rows = tuple((r.variant, fmt_int(r.batch), fmt_int(network.data_bytes(r.batch, report.config.dtype)),
                  fmt_int(r.graph_bytes), sig3(r.first_run_s / scale), sig3(r.later_median_s / scale),
                  None if r.folded else sig3(ratio(r.first_run_s, r.later_median_s)), fmt_bytes(r.peak_rss_bytes))
                 for r in ok)
    regimes = any(r.folded is not None for r in ok)
    if regimes:
        rows = tuple((*cells, _regime(r)) for cells, r in zip(rows, ok))
    legend = (f"Times in {u}; each point is a fresh worker (the median when there are several trials). data bytes = "
              f"the bytes of X; graph bytes = the serialized GraphDef; later median = median of the runs after the "
              f"first; peak RSS = the worker's peak resident memory." + (" folded = yes when no Conv2D was left in the "
              "graph that ran (one untimed run after the timed ones): its later runs skip the network, so it gets no "
              "first / later ratio." if regimes
              else ""))
    table = Table(("variant", "batch", "data bytes", "graph bytes", "first run", "later median", "first / later",
                   "peak RSS", *(("folded",) if regimes else ())), rows, keys=2)
    return table, legend, u


def _limits_cell(fit, dtype):
    """Both 2 GiB limits' batches for a fitted line, or one when they agree."""
    if fit.max_batch is None:
        return "no limit"
    tensor = limits.max_tensor_batch(dtype)
    return f"{fit.max_batch:,}" if tensor == fit.max_batch else f"{tensor:,} / {fit.max_batch:,}"


def fit_table(report):
    """The fitted line graph_bytes = a * batch + b per variant, and where it crosses 2 GiB."""
    example = network.example_bytes(report.config.dtype)
    rows = []
    for f in fits(report):
        peak = peak_per_example(report, f.variant)
        # The slope is shown only where the judge tells the end points' peaks apart; else it is no growth.
        copies = peak[0] if peak is not None and peak[1].differs else None
        rows.append((f.variant, fmt_int(f.bytes_per_example), fmt_int(example), fmt_int(f.overhead_bytes),
                     fmt_int(f.max_residual_bytes), _limits_cell(f, report.config.dtype),
                     str(f.points), None if copies is None else f"{copies:.1f}"))
    legend = ("a = bytes per example; one example = H*W*C*itemsize; b = the other bytes. Least squares over the "
              "measured batches, a rounded to whole bytes and b refitted for it; residual = the largest distance in "
              "bytes of a measured graph from the line. max batch: tensor = the largest N whose X, one tensor, "
              "TensorFlow accepts at creation; GraphDef = the largest N with "
              f"a*N + b < 2 GiB ({limits.GRAPHDEF_LIMIT:,} bytes), which can be serialized; one number when both "
              "agree. peak RSS / example = slope of peak memory against "
              "batch, in units of one example's bytes, shown when the batches span at least "
              f"{fmt_bytes(PEAK_SPAN_BYTES)} of data and the peaks of the largest and the smallest batch (one per "
              "fresh worker) differ by a rank test (Mann-Whitney U, 4 a side at least).")
    table = Table(("variant", "a", "one example", "b", "residual", "max batch: tensor / GraphDef", "points",
                   "peak RSS / example"), tuple(rows))
    return table, legend


def render(report, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The whole sweep report as text, fitted to width (None: one wide table per section)."""
    head, ok = header(report), any(r.ok for r in report.rows)
    sections = []
    if ok:
        table, legend, u = points_table(report)
        sections.append((f"Points ({u})", table, legend))
    if ok and fits(report):
        sections.append(("Graph bytes = a * batch + b", *fit_table(report)))
    headline, findings = told(report)
    return page(head, sections, "What this sweep shows:" if ok else None, findings if ok else (),
                failures(report.rows, lambda r: f"batch {r.batch:,} {r.label}"), fmt, width,
                answer=headline if ok else (), verbose=verbose, figure=figure)
