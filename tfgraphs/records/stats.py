"""Summary statistics of repeated timings, and the one rule for "this difference is real"."""

import statistics
from dataclasses import dataclass

# Paired samples (the same lengths run twice) count as different only when the first is the slower on at least
# this share of pairs as well: a steady difference, not a few outliers.
STEADY_SHARE = 0.8


@dataclass(frozen=True)
class Summary:
    """min / median / max of n samples."""

    n: int
    min: float
    median: float
    max: float

    @classmethod
    def of(cls, samples):
        """Summarise samples, or return None when there are none."""
        samples = [s for s in samples if s is not None]
        if not samples:
            return None
        return cls(len(samples), min(samples), statistics.median(samples), max(samples))


def median_or_none(values):
    """Median of the values that are not None, or None."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    """a / b, or None when either is missing or b is zero."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def spread(samples):
    """max - min of the samples that are not None; 0.0 for fewer than two."""
    samples = [s for s in samples if s is not None]
    return max(samples) - min(samples) if len(samples) > 1 else 0.0


def iqr(values):
    """Interquartile range of the values (inclusive quartiles); 0.0 for fewer than two."""
    values = list(values)
    if len(values) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q3 - q1


@dataclass(frozen=True)
class Difference:
    """A difference and the spread it was judged against: real only when it exceeds that spread."""

    delta: float
    spread: float
    steady: bool = True   # for paired samples: the sign held on at least STEADY_SHARE of the pairs

    @property
    def real(self):
        return abs(self.delta) > self.spread and self.steady

    @property
    def larger(self):
        """True when the difference is real and positive."""
        return self.real and self.delta > 0


def judge(delta, *spreads):
    """delta against the largest of the sides' spreads."""
    return Difference(delta, max(spreads, default=0.0))


def share_bounds(part, whole, *spreads):
    """part / whole as (share, share) when part exceeds every spread; else the (low, high) range it may lie in."""
    d = judge(part, *spreads)
    if d.real:
        return part / whole, part / whole
    return tuple(sorted(((part - d.spread) / whole, (part + d.spread) / whole)))


def between(a, b):
    """Median of samples a minus median of samples b, against the spread (max - min) of both."""
    return judge(statistics.median(a) - statistics.median(b), spread(a), spread(b))


@dataclass(frozen=True)
class Paired(Difference):
    """Pairs a[i] - b[i]: their median, against b's IQR; above = pairs where a was the larger, of n."""

    above: int = 0
    n: int = 0


def paired(a, b):
    """How far a exceeded b pair by pair (the same length, say): steady when a was larger on STEADY_SHARE of pairs."""
    diffs = [x - y for x, y in zip(a, b)]
    above = sum(d > 0 for d in diffs)
    return Paired(statistics.median(diffs), iqr(b), steady=above >= STEADY_SHARE * len(diffs), above=above,
                  n=len(diffs))


# A first run is one sample per fresh worker: a difference between first runs is judged only on this many a side.
MIN_FIRST_RUNS = 3


@dataclass(frozen=True)
class FirstRuns:
    """Two sides' first runs, one per fresh worker each: real only with MIN_FIRST_RUNS a side and beyond both
    sides' spread of first runs."""

    a: tuple
    b: tuple

    @property
    def delta(self):
        return statistics.median(self.a) - statistics.median(self.b)

    @property
    def judged(self):
        """True when each side has enough samples for the difference to be judged at all."""
        return min(len(self.a), len(self.b)) >= MIN_FIRST_RUNS

    @property
    def spread(self):
        return max(spread(self.a), spread(self.b))

    @property
    def real(self):
        return self.judged and abs(self.delta) > self.spread

    @property
    def samples(self):
        """How many first runs each side rests on, as the output says it: 'n=3 and n=3'."""
        return f"n={len(self.a)} and n={len(self.b)}"


def first_run_count(rows):
    """'1 first run' or '1 to 3 first runs': how many fresh-worker samples the rows' first runs rest on."""
    counts = sorted({len(r.first_runs_s) for r in rows})
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    return f"{n} first run{'' if counts[-1] == 1 else 's'}"


def first_runs(a, b):
    """FirstRuns of two sides' per-worker first runs (None values left out)."""
    return FirstRuns(tuple(s for s in a if s is not None), tuple(s for s in b if s is not None))
