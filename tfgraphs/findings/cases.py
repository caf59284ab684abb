"""A lesson's timed cases: their runs, one judged against another, and how their times and bytes are written."""

import statistics

from tfgraphs.records.stats import judge, spread
from tfgraphs.spec import network
from tfgraphs.units import fmt_bytes, fmt_s


def data_bytes(report):
    """Bytes of X in this run."""
    return network.data_bytes(report.config["batch"], report.config["dtype"])


def runs_of(case):
    """Every run of a case: its repeats, or its one timed run."""
    return case.runs_s or (case.seconds,)


def against(case, base):
    """case's time against the runs of base, judged by the one rule: (Difference, ratio)."""
    runs = runs_of(base)
    median = statistics.median(runs)
    return judge(case.seconds - median, spread(runs), spread(runs_of(case))), case.seconds / median


def short_s(seconds):
    """A duration, in microseconds when under a millisecond."""
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else fmt_s(seconds)


def signed_bytes(series):
    """The change from the first to the last of a series of byte counts, signed: "+1.2 MB"."""
    change = series[-1] - series[0]
    return ("-" if change < 0 else "+") + fmt_bytes(abs(change))
