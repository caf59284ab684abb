"""shapes' costs as arithmetic on its records: what a new length cost one worker (pass 1 against the later passes,
length by length), the control within blocked's worker, and one worker's figures set against another mode's, guarded
by the control every worker runs. Every comparison asks the judge."""

import functools
import statistics
from dataclasses import dataclass

from tfgraphs.records.judge import Verdict, judge as judge_now
from tfgraphs.records.results import khz_per_call

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


def judge(a, b, *, paired=False, scale="ratio", control=None):
    """The judge (control, when given, is a Verdict or None), asked afresh each time: inside an answer's family it
    gives the verdict as the family judged it."""
    return judge_now(a, b, paired=paired, scale=scale, control=control)


def cost(run, lengths, batch, control=None):
    """The Cost of one ok ModeRun whose passes ran over lengths; control guards its verdicts."""
    first, later = run.times_s[0], run.times_s[1:]
    seen = tuple(statistics.median(p[i] for p in later) for i in range(1, len(first))) if later else None
    return Cost(run.mode, first[0], tuple(first[1:]), seen, khz_per_call(batch, lengths[1:], first[1:]),
                None if seen is None else khz_per_call(batch, lengths[1:], seen), control)


def lengths_of(results):
    return results.config.lengths


def run_cost(results, run, control=None):
    """cost() with the results' lengths and batch."""
    return cost(run, lengths_of(results), results.config.batch, control)


def control_verdict(results, ok):
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


def split(results):
    """(main runs, runs with the device's switch off)."""
    switch = results.switch
    off = [r for r in results.rows if switch and r.env.get(switch) == "0"]
    return [r for r in results.rows if r not in off], off


def costs_by_mode(results, ok):
    """The Cost of every mode timed on at least one length after the first, each guarded by the control."""
    control = control_verdict(results, ok)
    return {r.mode: run_cost(results, r, control) for r in ok if timed(r)}


def first_workers(rows):
    """The first ok worker of each mode, in the order they ran: what a sentence within one worker reads."""
    firsts = {}
    for r in rows:
        if r.ok:
            firsts.setdefault(r.mode, r)
    return tuple(firsts.values())


def workers_of(results, mode, off=False):
    """Every ok worker of mode (run with the device's switch off when off) that timed a length after the first."""
    main, switched = split(results)
    return [r for r in (switched if off else main) if r.ok and r.mode == mode and timed(r)]


def new_khz(c):
    """A worker's median throughput on lengths seen for the first time."""
    return statistics.median(c.new_khz)


def seen_khz(c):
    """A worker's median throughput on lengths already seen (None with one pass)."""
    return None if c.seen_khz is None else statistics.median(c.seen_khz)


def extra(c):
    """A worker's median time a new length added to a call (None with one pass)."""
    return c.extra_s


def workers_control(mine, theirs):
    """Each worker's median time of the fixed NumPy sort, the same work in every worker, mine against theirs: a
    slower worker shows here (None where a side timed none)."""
    a, b = ([statistics.median(r.control_s) for r in rows if r.control_s] for rows in (mine, theirs))
    return judge(a, b) if a and b else None


def across(results, mine, theirs, what, control=None, scale="ratio"):
    """mine's workers against theirs, what(Cost) one value a worker: independent samples, guarded by the control
    within blocked's worker where it moved, else by the workers' own control."""
    guard = control if control is not None and control.differs else workers_control(mine, theirs)
    a, b = ([what(run_cost(results, r)) for r in rows] for rows in (mine, theirs))
    return judge(a, b, scale=scale, control=guard)
