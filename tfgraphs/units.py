"""How numbers and lists read in sentences: durations, byte counts, shapes, 'a, b and c'."""

import math


def fmt_s(seconds):
    """A duration with a unit that suits it."""
    if seconds is None:
        return "-"
    if abs(seconds) >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.1f} ms"


def sig3(value):
    """A number with three significant digits, never in exponent form: 2480, 146, 14.6, 1.46, 0.446, 0.0446."""
    if value is None:
        return None
    rounded = float(f"{value:.3g}")
    size = abs(rounded)
    if size >= 100 or size == 0:
        return f"{rounded:.0f}"
    return f"{rounded:.{2 - math.floor(math.log10(size))}f}"


def fmt_int(n):
    """A whole number with thousands separators, or None."""
    return None if n is None else f"{n:,}"


def fmt_bytes(n):
    """Bytes in decimal units (kB, MB, GB)."""
    if n is None:
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def join(items):
    """'a', 'a and b', 'a, b and c'."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def shape_text(dims):
    """A tensor shape as 3x4x5, or scalar."""
    return "scalar" if not dims else "x".join(str(d) for d in dims)
