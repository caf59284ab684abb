"""The one reader of every number a user gives, as command-line text or a Python value: whole numbers, positive
real numbers and byte sizes with a unit, each within its bounds, or a one-line UsageError naming the flag.

Text is read only in ASCII digits 0-9: digits of other scripts (Arabic-Indic '٣', full-width '５', superscript '²')
are refused rather than read, so what a person sees typed is what runs.
"""

import math
import numbers
import re
from dataclasses import dataclass
from fractions import Fraction

from tfgraphs.errors import UsageError

LARGEST = 2**63 - 1   # numpy and TensorFlow hold every count and size tfgraphs takes in int64
_SHOWN = 24           # digits a message quotes of a longer number
# Digits read exactly: any more (past leading zeros) is past LARGEST, so its value is never needed, and int() of
# thousands of digits is slow or refused outright.
_DIGITS = 40

# Matched against stripped text, and written so that no part can match what its neighbour does: a long near-miss
# ("0000...x") fails in one pass rather than by backtracking over every split of it.
_WHOLE = re.compile(r"([+-]?)([0-9]+)", re.ASCII)
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                   re.ASCII | re.IGNORECASE)
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))?\s*([kmgt]i?b|b)?", re.ASCII | re.IGNORECASE)
UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
         "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}

# What each kind of number is called when text is not one.
WHAT = {"whole": "a whole number", "positive": "a number", "size": "a size (try 1048576, 512KiB or 2MB)"}


def flag(name):
    """batch_size -> --batch-size: how messages name an option."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Bounds:
    """What a number may be: its kind (whole, positive or size), from least to most, and why not less."""

    kind: str = "whole"
    least: int = 1        # for a positive number: more than 0, whatever this says
    most: float = LARGEST
    why: str = ""         # said when a number below least is given
    unit: str = ""        # said after most, e.g. " s"


def read_number(name, value, bounds=Bounds()):
    """value as an int (whole, size) or a float (positive) within bounds; else a one-line UsageError naming the flag."""
    if bounds.kind == "positive":
        return _positive(name, value, bounds)
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Integral)):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not {WHAT[bounds.kind]}")
    number, shown = (int(value), None) if isinstance(value, numbers.Integral) else _text(name, value, bounds.kind)
    if shown is None and abs(number) >= 10**_DIGITS:
        shown = _quoted(number)
    if number < bounds.least:
        raise UsageError(f"{flag(name)} {_said(number, shown, value, bounds)} must be {_at_least(bounds)}"
                         + (f": {bounds.why}" if bounds.why else ""))
    if number > bounds.most:
        raise UsageError(f"{flag(name)} {_said(number, shown, value, bounds)} must be at most {_most(bounds)}")
    return number


def _text(name, text, kind):
    """(the number text says, how a message shows it when past _DIGITS digits, else None); UsageError if none."""
    found = (_WHOLE if kind == "whole" else _SIZE).fullmatch(text.strip())
    if not found:
        raise UsageError(f"{flag(name)} {_quoted(text)} is not {WHAT[kind]}")
    digits = (found.group(2) if kind == "whole" else found.group(1)).lstrip("0") or "0"
    sign = -1 if kind == "whole" and found.group(1) == "-" else 1
    if len(digits) > _DIGITS:
        # Past every bound: a stand-in of the same sign compares as the number would.
        return sign * 10**_DIGITS, f"{'-' if sign < 0 else ''}{digits[:_SHOWN]}... ({len(digits):,} digits)"
    if kind == "whole":
        return sign * int(digits), None
    fraction = (found.group(2) or "")[:_DIGITS]
    exact = Fraction(int(digits + fraction), 10 ** len(fraction)) * UNITS[(found.group(3) or "b").lower()]
    return math.floor(exact), None


def _positive(name, value, bounds):
    """A finite float greater than 0 and at most bounds.most."""
    text = isinstance(value, str)
    if isinstance(value, bool) or not (text or isinstance(value, numbers.Real)) or (
            text and not _REAL.fullmatch(value.strip())):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not a number")
    try:
        number = float(value.strip() if text else value)
    except OverflowError:   # an int past any float
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not a number")
    if not number > 0:
        raise UsageError(f"{flag(name)} {_quoted(value)} must be greater than 0")
    if math.isinf(number):
        raise UsageError(f"{flag(name)} {_quoted(value)} must be a finite number")
    if number > bounds.most:
        raise UsageError(f"{flag(name)} {_quoted(value)} must be at most {_most(bounds)}")
    return number


def _most(bounds):
    """bounds.most as a refusal says it: 86,400 s, not 86,400.0 s."""
    most = bounds.most
    return f"{int(most) if isinstance(most, int) or most.is_integer() else most:,}{bounds.unit}"


def _at_least(bounds):
    """bounds.least as a refusal says it."""
    if bounds.kind == "size":
        return f"at least {bounds.least:,} byte" + ("s" if bounds.least != 1 else "")
    return "0 or more" if bounds.least == 0 else f"at least {bounds.least:,}"


def _said(number, shown, value, bounds):
    """How a refusal shows the number: as read for a whole number (5 from ' 5'), as given for a size."""
    if shown is not None:
        return shown
    return str(number) if bounds.kind == "whole" or not isinstance(value, str) else _quoted(value)


def _quoted(value):
    """repr(value), one line, cut to a length a message can hold (an int too long to print, by its size)."""
    if isinstance(value, numbers.Integral) and abs(value) >= 10**_DIGITS:
        return f"{'-' if value < 0 else ''}a whole number of {abs(int(value)).bit_length():,} bits"
    said = repr(value)
    return said if len(said) <= 60 else said[:57] + "..."
