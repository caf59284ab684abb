"""sweep's answer block: how the graph grows with the batch, where 2 GiB stops it, and what the first run does."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.explain import more_trials
from tfgraphs.findings.sweep import first_run_change, series
from tfgraphs.records.sweep import fits
from tfgraphs.units import fmt_s


def answer(report):
    """At most six lines: bytes per example and the largest batch of each fitted variant, then first-run growth."""
    said = [_fit(f) for f in fits(report)][:3]
    for v in report.config["variants"]:
        said.extend(_first_runs(series(report, v)))
    return said[:5] or ["No batch produced a result."]


def _fit(fit):
    """A fitted line, in one line: measured bytes per example, the rest, and the largest batch under 2 GiB."""
    if not fit.bytes_per_example:
        return f"{fit.variant}: the GraphDef stays at about {fit.overhead_bytes:,} bytes at every batch."
    limit = f", under 2 GiB up to batch {fit.max_batch:,}" if fit.max_batch else ""
    return (f"{fit.variant}: each example adds {fit.bytes_per_example:,} bytes to the GraphDef (fit over "
            f"{fit.points} batches){limit}.")


@rests_on("first_run_s", "first_runs_s")
def _first_runs(rows):
    """The first run at the smallest and the largest batch, and whether the judge tells them apart."""
    if len(rows) < 2:
        return []
    lo, hi = rows[0], rows[-1]
    verdict = first_run_change(lo, hi)
    return [judged(f"{lo.variant}: first run {fmt_s(lo.first_run_s)} at batch {lo.batch:,}, {fmt_s(hi.first_run_s)} "
                   f"at {hi.batch:,}: {verdict.says()}{more_trials(verdict)}.", verdict)]
