"""What a saved document may hold: the range each record field declares, rows that agree with their trials, and a
config a run could have had. A document outside them is refused in one line naming where (variants[0].graph_bytes).
"""

import math
from dataclasses import dataclass, field, fields, is_dataclass

from tfgraphs.records.stats import median_or_none
from tfgraphs.spec.common import BATCH, FULL_TRIALS, RUNS, SEED, TRIALS
from tfgraphs.spec.limits import GRAPHDEF_LIMIT


@dataclass(frozen=True)
class Range:
    """From least to most, finite unless unbounded (an output that differs in shape or holds NaN is saved so)."""

    least: float = 0
    most: float = math.inf
    unbounded: bool = False
    why: str = ""   # said after the bounds: where most comes from

    def fault(self, number):
        """What is wrong with number, or None."""
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            return "not a number"
        if not math.isfinite(number):
            said = self.said()
            return None if self.unbounded else "must be a finite number" + (f", {said}" if said else "")
        return None if self.least <= number <= self.most else f"must be {self.said()}"

    def said(self):
        # No least: a change, or what is left over a fitted line, which may go either way.
        low = "" if self.least == -math.inf else "0 or more" if self.least == 0 else f"at least {self.least:,}"
        if self.most == math.inf:
            return low + self.why
        return (f"from {self.least:,} to {self.most:,}" if low else f"at most {self.most:,}") + self.why


def ranged(least=0, most=math.inf, *, unbounded=False, why="", default=None, factory=None, keys=None):
    """A record field of default (or factory()) whose numbers, in tuples and dicts too, lie in the range; with keys
    ({key: Range}), the field holds dicts (or lists of them) whose numbers under each key lie in that key's range,
    and whose other keys hold names, not numbers."""
    made = {"default_factory": factory} if factory else {"default": default}
    return field(**made, metadata={"range": keys if keys is not None else Range(least, most, unbounded, why)})


# A serialized GraphDef is a protobuf message, which cannot reach 2 GiB.
GRAPH_BYTES = dict(most=GRAPHDEF_LIMIT - 1, why=" (protobuf's 2 GiB limit)")


def check_record(record, where=""):
    """ValueError naming the first number of record, or of the records in its tuples (trials), outside its range."""
    for f in fields(record):
        value, place = getattr(record, f.name), f"{where}{f.name}"
        span = f.metadata.get("range")
        if span is not None:
            check_value(value, place, span)
        elif isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            for i, inner in enumerate(value):
                check_record(inner, f"{place}[{i}].")


def check_value(value, place, span):
    """ValueError naming the first number value holds outside span: a Range, or {key: Range} for the dicts it holds."""
    for at, number, inner in _numbers(value, place, span):
        if isinstance(inner, dict):
            raise ValueError(f"{at} is {_shown(number)[:40]}, not an object")
        fault = inner.fault(number)
        if fault:
            raise ValueError(f"{at} is {_shown(number)}, {fault}")


def _numbers(value, place, span):
    """(where, number, its range) of every number value holds, inside tuples, lists and dicts too; None holds none,
    and a dict's keys that span does not name hold none."""
    if value is None:
        return
    if isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            yield from _numbers(item, f"{place}[{i}]", span)
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = span.get(key) if isinstance(span, dict) else span
            if inner is not None:
                yield from _numbers(item, f"{place}.{key}", inner)
    else:
        yield place, value, span


def _shown(number):
    return f"{number:,}" if isinstance(number, int) and not isinstance(number, bool) else repr(number)


def check_agrees(row, where, medians, int_fields):
    """ValueError when an ok row contradicts its trials, as Row.from_trials makes a row of them: a failed trial,
    a median field that is not the median of the ok trials' values, or later runs that are not theirs pooled."""
    if not row.trials or not row.ok:
        return
    failed = next((i for i, t in enumerate(row.trials) if t.status != "ok"), None)
    if failed is not None:
        raise ValueError(f"{where}.status is 'ok', but its {where}.trials[{failed}] failed")
    for name in medians:
        given, values = getattr(row, name), [getattr(t, name) for t in row.trials]
        if given is None or all(v is None for v in values):
            continue   # documents written before a field was kept leave it out of the row
        median = median_or_none(values)
        median = int(median) if name in int_fields else median
        if not (math.isclose(given, median, rel_tol=1e-9) or math.isnan(given) and math.isnan(median)):
            raise ValueError(f"{where}.{name} is {_shown(given)}, but the median of its trials' is {_shown(median)}")
    pooled = [s for t in row.trials for s in t.runs_s]
    if pooled and sorted(pooled) != sorted(row.runs_s):
        raise ValueError(f"{where}.runs_s holds {len(row.runs_s)} runs, not the {len(pooled)} of its trials")


# The config numbers a document's text counts or divides by, each bounded by the option that sets it.
CONFIG = {"batch": BATCH, "runs": RUNS, "trials": TRIALS, "full_trials": FULL_TRIALS, "seed": SEED}


def check_config(config):
    """ValueError naming a config number no run could have been given (a batch of 0: every per-example figure
    divides by it)."""
    for name, option in CONFIG.items():
        _check_whole(f"config.{name}", config.get(name), option.check)
    batches = config.get("batches")
    for i, batch in enumerate(batches if isinstance(batches, list) else ()):
        _check_whole(f"config.batches[{i}]", batch, BATCH.check)


def _check_whole(place, value, check):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{place} is {str(value)[:40]!r}, not a whole number")
    fault = Range(check.least, math.inf if check.most is None else check.most).fault(value)
    if fault:
        raise ValueError(f"{place} is {value:,}, {fault}")
