"""What a new input length cost each mode of a shapes report: the costs, length by length, and the control that
guards every verdict on them (blocked's pass 2 against its pass 3, the same fixed-shape work on lengths already
seen)."""

import functools
import statistics
from dataclasses import dataclass

from tfgraphs.findings.cases import short_s
from tfgraphs.records.judge import Verdict, judge as judge_now
from tfgraphs.records.rows import khz_per_call

CONTROL = "blocked"     # the mode whose passes after the first do identical work
CONTROL_PASSES = (1, 2)  # its pass 2 against its pass 3 (indices): the control


@dataclass(frozen=True)
class Cost:
    """What a new length cost one run, over every length but the first (its first call is the worker's start-up)."""

    mode: str
    first_s: float            # the very first call in the worker, start-up included
    new: tuple                # pass-1 call of each length after the first
    seen: tuple | None        # median later-pass call of each length after the first (None with one pass)
    new_khz: tuple            # the throughput of each of those pass-1 calls
    seen_khz: tuple | None    # the throughput of each median later-pass call
    control: Verdict | None = None   # the control's verdict, guarding this run's (None for the control itself)

    @property
    def new_s(self):
        return statistics.median(self.new)

    @property
    def seen_s(self):
        return None if self.seen is None else statistics.median(self.seen)

    @property
    def differences(self):
        """Pass 1 minus the later passes, length by length."""
        return None if self.seen is None else tuple(a - b for a, b in zip(self.new, self.seen))

    @functools.cached_property
    def penalty(self):
        """Pass 1 against the later passes, paired by length, guarded by the control."""
        return None if self.seen is None else judge(self.new, self.seen, paired=True, control=self.control)

    @property
    def extra_s(self):
        """Time a new length added to one call: the median paired difference (shown, never deciding)."""
        return None if self.seen is None else statistics.median(self.differences)

    @property
    def penalized(self):
        return self.seen is not None and self.penalty.larger


@functools.lru_cache(maxsize=4096)
def _judge_tuples(a, b, paired, scale, control):
    return judge_now(a, b, paired=paired, scale=scale, control=control)


def judge(a, b, *, paired=False, scale="ratio", control=None):
    """The judge, remembered: every sentence of a report asks it about the same samples, and a test with ties
    permutes (control, when given, is a Verdict or None)."""
    return _judge_tuples(tuple(a), tuple(b), paired, scale, control)


def cost(run, lengths, batch, control=None):
    """The Cost of one ok ModeRun whose passes ran over lengths; control guards its verdicts."""
    first, later = run.times_s[0], run.times_s[1:]
    seen = tuple(statistics.median(p[i] for p in later) for i in range(1, len(first))) if later else None
    return Cost(run.mode, first[0], tuple(first[1:]), seen, khz_per_call(batch, lengths[1:], first[1:]),
                None if seen is None else khz_per_call(batch, lengths[1:], seen), control)


def lengths_of(report):
    return report.config.lengths


def report_cost(report, run, control=None):
    """cost() with the report's lengths and batch."""
    return cost(run, lengths_of(report), report.config.batch, control)


def control_verdict(report, ok):
    """blocked's pass 2 against its pass 3, paired by length: the same fixed-shape work on lengths it has already
    seen, which must not differ (None with fewer passes). Its pass 1 is not the control: padding and framing still
    meet each new length there."""
    run = next((r for r in ok if r.mode == CONTROL and timed(r) and len(r.times_s) > CONTROL_PASSES[1]), None)
    if run is None:
        return None
    return judge(run.times_s[CONTROL_PASSES[0]][1:], run.times_s[CONTROL_PASSES[1]][1:], paired=True)


def timed(run):
    """True when the run timed at least one length after the first."""
    return bool(run.times_s) and len(run.times_s[0]) > 1


def split(report):
    """(main runs, runs with the device's switch off)."""
    switch = report.switch
    off = [r for r in report.rows if switch and r.env.get(switch) == "0"]
    return [r for r in report.rows if r not in off], off


def short_device(name):
    """"/job:localhost/replica:0/task:0/device:CPU:0" -> "CPU:0"."""
    return None if not name else name.rsplit("device:", 1)[-1]


def signed(seconds):
    """A duration with its sign: "+1.2 ms", "-400 us"."""
    return ("-" if seconds < 0 else "+") + short_s(abs(seconds))


def later_label(report):
    """What the passes after the first are called in tables and sentences."""
    return "pass 2" if report.config.passes == 2 else "later passes"


def costs_by_mode(report, ok):
    """The Cost of every mode timed on at least one length after the first, each guarded by the control."""
    control = control_verdict(report, ok)
    return {r.mode: report_cost(report, r, control) for r in ok if timed(r)}
