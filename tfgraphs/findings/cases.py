"""A lesson's timed cases: their runs, one judged against another, and how their times and bytes are written."""

import statistics

from tfgraphs.records.judge import CANNOT_TELL, ONE_AGAINST, judge
from tfgraphs.units import fmt_bytes, fmt_s


def runs_of(case):
    """Every run of a case: its repeats, or its one timed run."""
    return case.runs_s or (case.seconds,)


def typical(case):
    """The median of a case's runs."""
    return statistics.median(runs_of(case))


def against(case, base):
    """case's runs against base's, independent samples (a single run is n=1): the judge's verdict."""
    return judge(runs_of(case), runs_of(base))


def paired_runs(case, base):
    """True when both cases hold as many repeats, run in turns (the same step in both conditions)."""
    return bool(case.runs_s and base.runs_s and len(case.runs_s) == len(base.runs_s))


def says(verdict):
    """The verdict as printed; one run against repeats that cannot tell says whether more repeats could."""
    if verdict.outcome == CANNOT_TELL and min(verdict.n_a, verdict.n_b) == 1 < max(verdict.n_a, verdict.n_b):
        # "a rank test needs 4 a side" does not fit a single run: what it needs is enough repeats beside it.
        more = ("" if max(verdict.n_a, verdict.n_b) >= ONE_AGAINST else
                f" (one run is placed among repeats only from {ONE_AGAINST} of them: --steps {ONE_AGAINST})")
        return f"cannot tell with {verdict.samples}{more} ({verdict.detail(fmt_s, samples=False)})"
    return verdict.says(fmt_s)


def short_s(seconds):
    """A duration, in microseconds when under a millisecond."""
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else fmt_s(seconds)


def signed_bytes(series):
    """The change from the first to the last of a series of byte counts, signed: "+1.2 MB"."""
    change = series[-1] - series[0]
    return ("-" if change < 0 else "+") + fmt_bytes(abs(change))
