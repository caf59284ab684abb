"""Summary statistics of repeated timings: min, median and max, a median, a ratio. Whether two samples differ is the
judge's to say (tfgraphs.records.judge)."""

import statistics
from dataclasses import dataclass


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
