"""sweep's answer block: how the graph grows with the batch, where 2 GiB stops it, and what the first run does."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.explain import more_trials
from tfgraphs.findings.sweep import first_run_change, series
from tfgraphs.records.sweep import fits, one_regime
from tfgraphs.units import fmt_s


def answer(report):
    """At most six lines: bytes per example and the largest batch of each fitted variant, then first-run growth."""
    said = [_fit(f) for f in fits(report)][:3]
    # Within the regime of the largest batch, as the findings judge growth: a folded batch's later runs skip the work.
    said.extend(_first_runs([r for v in report.config["variants"] for r in one_regime(series(report, v))]))
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
    """Each variant's first run at the smallest and the largest batch, in one line, and whether the judge tells them
    apart (rows: every variant's series, in order)."""
    told = []
    for variant in dict.fromkeys(r.variant for r in rows):
        mine = [r for r in rows if r.variant == variant]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            at = "" if not told or told[0][0] == (lo.batch, hi.batch) else f" (batch {lo.batch:,} and {hi.batch:,})"
            told.append(((lo.batch, hi.batch), f"{variant} {fmt_s(lo.first_run_s)} and {fmt_s(hi.first_run_s)}{at}",
                         first_run_change(lo, hi)))
    if not told:
        return []
    (lo_batch, hi_batch), verdicts = told[0][0], [v for _, _, v in told]
    runs = ", ".join(name for _, name, _ in told)
    briefs = {v.brief() for v in verdicts}
    judged_as = (f"each {briefs.pop()}" if len(briefs) == 1 else
                 "; ".join(f"{name.split(' ', 1)[0]} {v.brief()}" for _, name, v in told))
    return [judged(f"First run at batch {lo_batch:,} and {hi_batch:,}: {runs}: {judged_as}{more_trials(*verdicts)}.",
                   *verdicts)]
