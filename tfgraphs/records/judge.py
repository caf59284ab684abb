"""The one judge of "differs", with the statistics it and the pages rest on: scipy's rank tests, the effect with its
interval from the same test, three outcomes and how a verdict is phrased, verdicts judged together as one family
(Holm), and summary statistics of repeated timings."""

import contextvars
import functools
import json
import math
import statistics
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal

import numpy as np

from tfgraphs.spec.options import ALPHA, ONE_AGAINST, RANK_SUM, SIGNED_RANK

# scipy.stats is imported by the functions that test, so that --help and the option checks never load it.

MARGIN = 1.25         # "no difference beyond" this ratio (x0.8 to x1.25) unless a finding names its own size
FLOOR = 1.02          # a ratio nearer 1 than this is under the run's resolution: never "differs" (criterion.rs's noise)
SCALES = ("ratio", "shift")
LOG_MAX = math.log(sys.float_info.max)   # a ratio beyond e**LOG_MAX either way is no float

DIFFERS = "differs"
SAME = "no difference"
CANNOT_TELL = "cannot tell"
DISTURBED = "disturbed run"

EXACT_PAIRS = 10_000   # independent samples up to this many pairs (or 8 on a side) take the exact null distribution
EXACT_SIGNED = 50      # pairs up to this many take the exact signed-rank distribution, as scipy's own default does


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


# The null distributions. Both tests rank untied values; tied values are ranked as the tie broken against "differs"
# would rank them (see judge()), so each p and each interval comes from the distribution of untied ranks, exact
# where it can be computed, and p is never below what the ranks allow.

@functools.lru_cache(maxsize=None)
def rank_sum_p(m, n, u):
    """Two-sided Mann-Whitney U p-value of m against n untied samples whose U is u, at least 2 / C(m+n, m)."""
    from scipy import stats
    method = "exact" if min(m, n) <= 8 or m * n <= EXACT_PAIRS else "asymptotic"
    p = float(stats.mannwhitneyu(*_with_u(m, n, u), alternative="two-sided", method=method).pvalue)
    return min(1.0, max(p, 2 / math.comb(m + n, m)))


@functools.lru_cache(maxsize=None)
def signed_rank_p(n, t):
    """Two-sided Wilcoxon signed-rank p-value of n untied, non-zero differences whose positive ranks sum to t, at
    least 2 / 2**n."""
    from scipy import stats
    method = "exact" if n <= EXACT_SIGNED else "asymptotic"
    p = float(stats.wilcoxon(_with_t(n, t), alternative="two-sided", method=method).pvalue)
    return min(1.0, max(p, 2 / 2 ** n))


@functools.lru_cache(maxsize=None)
def rank_sum_critical(m, n, level=ALPHA):
    """The largest U the test rejects at level for m and n samples (-1 when none): the interval's ends are the
    pairwise differences just inside it."""
    return _largest(lambda u: rank_sum_p(m, n, u), m * n // 2, level)


@functools.lru_cache(maxsize=None)
def signed_rank_critical(n, level=ALPHA):
    """The largest signed-rank sum the test rejects at level for n pairs (-1 when none)."""
    return _largest(lambda t: signed_rank_p(n, t), n * (n + 1) // 4, level)


def _largest(p_of, top, level):
    """The largest k in 0..top with p_of(k) < level, p_of rising with k; -1 when p_of(0) is not."""
    lo, hi = -1, top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if p_of(mid) < level:
            lo = mid
        else:
            hi = mid - 1
    return lo


def fewest(method, level=ALPHA):
    """The fewest samples a side (pairs) at which the test can reject at level: 4 a side and 6 pairs at 5%."""
    k = 1
    while (2 / math.comb(2 * k, k) if method == RANK_SUM else 2 / 2 ** k) >= level:
        k += 1
    return k


def fewest_a_side(verdicts):
    """The fewest samples on each rank-sum verdict's smaller side (its larger side as many times as now) with which it
    could say "differs" at its level: 4 alone, 5 a side in a family of two; never fewer than 4."""
    def enough(v, t):
        k = max(1, v.n_a // max(v.n_b, 1))
        return 2 / math.comb((k + 1) * t, t) < v.level
    least = fewest(RANK_SUM)
    return max((next(t for t in range(least, 10**4) if enough(v, t)) for v in verdicts), default=least)

def _with_u(m, n, u):
    """m and n distinct values whose U (pairs where the first sample's value is the larger) is u."""
    b = np.arange(n, dtype=float)
    below = [min(n, max(0, u - n * i)) for i in range(m)]   # b-values under each a-value, summing to u
    a = np.array([k - 0.5 + i / (4 * m) for i, k in enumerate(below)])
    return a, b


def _with_t(n, t):
    """n differences of distinct magnitude 1..n whose positive ones' ranks sum to t."""
    signs, left = -np.ones(n), t
    for rank in range(n, 0, -1):
        if rank <= left:
            signs[rank - 1], left = 1.0, left - rank
    return signs * np.arange(1, n + 1)


def _against_differs(above, tied, total):
    """The rank statistic with its ties broken against "differs": of the values between above and above + tied (as
    the tied ones could fall), the nearest to the middle of 0..total."""
    return int(min(max(total // 2, above), above + tied))


@dataclass(frozen=True)
class Verdict:
    """What the judge decided about a against b, and everything it rests on."""

    outcome: str          # DIFFERS, SAME, CANNOT_TELL or DISTURBED
    method: str           # RANK_SUM (independent samples) or SIGNED_RANK (pairs)
    n_a: int
    n_b: int
    p: float | None       # None when a side has no sample
    effect: float         # a over b: the median of pairwise ratios (scale "ratio") or of pairwise shifts, Hodges-Lehmann
    low: float            # the effect's interval at 1 - level; -inf/inf (0/inf for a ratio) where n cannot bound it
    high: float
    scale: str = "ratio"  # "ratio" (Hodges-Lehmann on logs) or "shift" (Hodges-Lehmann on the values)
    margin: float = MARGIN
    above: int | None = None        # pairs: how many of the n_a pairs had a larger than b
    control: "Verdict | None" = None  # the control's own verdict, kept when it disturbed this one
    floor: float = FLOOR  # an effect nearer no difference than this is never "differs"
    left_out: int = 0     # NaN and infinite values left out (a pair holding one, for pairs)
    level: float = ALPHA  # the level this test was held to: ALPHA alone, Holm's step in a family
    family: int = 1       # how many verdicts were judged together with this one (Holm)
    adjusted: float | None = None   # its Holm-adjusted p in that family
    inputs: tuple | None = field(default=None, compare=False, repr=False)   # (a, b, paired, control) as judged

    @property
    def differs(self):
        return self.outcome == DIFFERS

    @property
    def same(self):
        return self.outcome == SAME

    @property
    def larger(self):
        """True when a differs from b and is the larger."""
        return self.differs and self.effect > self.neutral

    @property
    def smaller(self):
        """True when a differs from b and is the smaller."""
        return self.differs and self.effect < self.neutral

    @property
    def neutral(self):
        """The effect of no difference: 1 for a ratio, 0 for a shift."""
        return 1.0 if self.scale == "ratio" else 0.0

    @property
    def samples(self):
        """'n=19 and 20', or 'n=20 pairs', with the values left out as not finite."""
        if self.method == SIGNED_RANK:
            text = f"n={self.n_a} pair{'' if self.n_a == 1 else 's'}"
        else:
            text = f"n={self.n_a} and {self.n_b}"
        return text + (f", {self.left_out} NaN or infinite left out" if self.left_out else "")

    @property
    def confidence(self):
        """'95% CI', or in a family the confidence of its Holm step: '97.5% CI'."""
        return f"{100 * (1 - self.level):.3g}% CI"

    @property
    def holm(self):
        """'Holm p=0.058 over 2' in a family, else ''."""
        if self.family < 2 or self.adjusted is None:
            return ""
        return f"Holm {_p_text(self.adjusted)} over {self.family}"

    def detail(self, unit=None, samples=True):
        """'x3,000, 95% CI x1,100 to x5,000; n=19 and 20, p=0.0001': the effect, its interval, n and p."""
        show = ratio_text if self.scale == "ratio" else (unit or _plain)
        interval = (f"{self.confidence} {self.ends(unit)}" if self.bounded else f"no {self.confidence} at this n")
        p = "" if self.p is None else _p_text(self.p)
        effect = "no effect measured" if math.isnan(self.effect) else show(self.effect)
        tail = ", ".join(part for part in (self.samples if samples else "", p, self.holm) if part)
        return f"{effect}, {interval}" + (f"; {tail}" if tail else "")

    @property
    def bounded(self):
        """True when the interval has two finite, non-zero ends."""
        return all(math.isfinite(v) and (self.scale != "ratio" or v > 0) for v in (self.low, self.high))

    def phrase(self, unit=None):
        """The outcome in words: 'differs', 'no difference beyond 25%', 'cannot tell with n=3 and 3 (...)'."""
        if self.outcome == DIFFERS:
            return "differs"
        if self.outcome == SAME:
            return f"no difference beyond {self.margin_text(unit)}"
        if self.outcome == DISTURBED:
            return (f"disturbed run: its control, work that must not differ, moved "
                    f"({self.control.detail(unit)})")
        return f"cannot tell with {self.samples}{self.need}"

    @property
    def need(self):
        """' (a rank test needs 4 a side)' where no outcome of the test at these n could reject, else ''."""
        m, n = self.n_a, self.n_b
        if self.method == SIGNED_RANK:
            can = m and signed_rank_critical(m, self.level) >= 0
            return "" if can else f" (a rank test needs {fewest(SIGNED_RANK, self.level)} pairs)"
        if m and n and rank_sum_critical(m, n, self.level) >= 0:
            return ""
        if min(m, n) == 1 < max(m, n):
            return f" (one run is placed among repeats only from {one_against(self.level)} of them)"
        return f" (a rank test needs {fewest(RANK_SUM, self.level)} a side)"

    def margin_text(self, unit=None):
        """The size 'no difference beyond' names: '25%' for a ratio, the unit's text for a shift."""
        return f"{self.margin - 1:.0%}" if self.scale == "ratio" else (unit or _plain)(self.margin)

    def says(self, unit=None):
        """'differs (x3,000, 95% CI x1,100 to x5,000; n=19 and 20, p<0.001)': outcome and detail, as printed."""
        if self.outcome == DISTURBED:
            return self.phrase(unit)
        # "cannot tell" names n already.
        return f"{self.phrase(unit)} ({self.detail(unit, samples=self.outcome != CANNOT_TELL)})"

    def brief(self, unit=None):
        """The outcome with its effect, interval and n, without p but for a family's Holm p, for an answer line:
        'differs (x3.18, 95% CI x2.1 to x6.9; n=8 and 8)', 'cannot tell with n=1 and 1 (no 95% CI)'."""
        holm = f"; {self.holm}" if self.holm else ""
        if self.outcome == DISTURBED:
            return "disturbed run (its control moved)"
        if self.outcome == CANNOT_TELL and not self.bounded:
            return f"cannot tell with {self.samples} (no {self.confidence}{holm})"
        interval = self.effect_text(unit)
        if self.outcome == CANNOT_TELL:
            return f"cannot tell with {self.samples} ({interval}{holm})"
        return f"{self.phrase(unit)} ({interval}; {self.samples}{', ' + self.holm if self.holm else ''})"

    def effect_text(self, unit=None):
        """'x3.18, 95% CI x2.1 to x6.9': the effect and its interval alone."""
        show = ratio_text if self.scale == "ratio" else (unit or _plain)
        return f"{show(self.effect)}, {self.confidence} {self.ends(unit)}"

    def ends(self, unit=None):
        """'x2.10 to x6.90': the interval's ends, a ratio's rounded outward."""
        if self.scale == "ratio":
            return f"{ratio_text(self.low, 'down')} to {ratio_text(self.high, 'up')}"
        show = unit or _plain
        return f"{show(self.low)} to {show(self.high)}"

    def to_dict(self):
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("inputs", "control")}
        d["control"] = None if self.control is None else self.control.to_dict()
        return {k: (_finite(v) if isinstance(v, float) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d):
        d = {k: v for k, v in d.items() if k != "inputs"}
        d["control"] = None if d.get("control") is None else cls.from_dict(d["control"])
        # An unbounded end was written as None: the low end of a ratio is 0, of a shift -inf.
        unbounded = {"low": 0.0 if d.get("scale", "ratio") == "ratio" else -math.inf, "high": math.inf,
                     "effect": math.nan}
        for k, end in unbounded.items():
            d[k] = end if d[k] is None else float(d[k])
        return cls(**d)


def one_against(level):
    """The fewest repeats among which one run can be placed at level: 40 at 5%, 80 at 2.5%."""
    return ONE_AGAINST if level == ALPHA else math.floor(2 / level)


def _p_text(p):
    text = f"{p:.2g}"
    if p < ALPHA <= float(text):   # 0.0496 is not 0.05: never rounded onto the level it passed
        text = f"{p:.3g}"
    return f"p={text}" if p >= 0.001 else "p<0.001"


def _finite(v):
    """JSON has no infinity: an unbounded end is written as None."""
    return v if math.isfinite(v) else None


def _plain(v):
    """A shift in no unit: three significant figures with its sign."""
    return f"{v:+.3g}"


def ratio_text(r, way=None):
    """'x3,000', 'x12', 'x1.68', 'x0.25', 'x4.2e+07': a ratio to the precision a reader uses; way "down" or "up"
    rounds an interval's end outward, so the printed interval holds the computed one."""
    if not r > 0 or not math.isfinite(r):
        return f"x{r}"
    if not 1e-3 <= r < 1e6:
        # Three significant figures in powers of ten, rounded in Decimal, which holds every float exactly.
        rounding = {"down": ROUND_FLOOR, "up": ROUND_CEILING}.get(way, ROUND_HALF_EVEN)
        return f"x{Context(prec=3, rounding=rounding).plus(Decimal(r)):.2e}"
    step = _step(r)
    value = _rounded(r, step, way)
    if _step(value) != step:   # 9.999 rounds up to 10.00: written at 10's precision, x10.0
        step = _step(value)
        value = _rounded(r, step, way)
    while way and r != 1 and (value <= 1 if r > 1 else value >= 1) and step > 1e-9:   # an end keeps its side of x1
        step /= 10
        value = _rounded(r, step, way)
    decimals = max(0, -math.floor(math.log10(step) + 1e-9))
    return f"x{value:,.{decimals}f}"


def _rounded(r, step, way):
    """r to a whole number of steps, down, up or to the nearest; a tolerance keeps an exact end (2.00 as
    200.00000000000003 hundredths) from moving a step."""
    units = {"down": math.floor(r / step + 1e-9), "up": math.ceil(r / step - 1e-9)}.get(way, round(r / step))
    return units * step


def _step(r):
    """The rounding step of a ratio: three significant figures, two below 0.01, whole numbers from 100."""
    return (10 ** (math.floor(math.log10(r)) - 2) if r >= 1000 else 1 if r >= 100 else 0.1 if r >= 10 else
            0.01 if r >= 0.01 else 10 ** (math.floor(math.log10(r)) - 1))


def judge(a, b, *, paired=False, scale="ratio", margin=None, floor=None, control=None, level=ALPHA):
    """a against b: paired (the same step, as many of each) or independent; None values left out, NaN and infinite
    ones left out and counted. Inside a family (adjusted()), the verdict is the one the family's Holm step gives.

    scale "ratio" judges a/b on logs (timings, byte counts); "shift" judges a-b in the samples' unit (values that may
    be zero or negative). margin is the size "no difference beyond" names (x1.25, or 0 for a shift); floor the effect
    under which nothing "differs" (x1.02, or 0 for a shift). control, when given, is the (a, b) of work that must not
    differ, judged alone the same way (or its Verdict): if it differs, the verdict is DISTURBED and carries it.
    """
    verdict = _judged(a, b, paired, scale, margin, floor, control, level)
    table = _FAMILY.get()
    return table.get(_key(verdict), verdict) if table else verdict


def _judged(a, b, paired, scale, margin, floor, control, level):
    """judge() outside any family."""
    if scale not in SCALES:
        raise ValueError(f"judge: scale={scale!r} is not one of {', '.join(map(repr, SCALES))}")
    margin = _size("margin", margin, MARGIN if scale == "ratio" else 0.0, scale)
    floor = _size("floor", floor, FLOOR if scale == "ratio" else 0.0, scale)
    if not 0 < level < 1:
        raise ValueError(f"judge: level={level!r} is not a probability between 0 and 1")
    x, y, left_out = _kept(a, b, paired)
    if scale == "ratio" and any(v <= 0 for v in (*x, *y)):
        raise ValueError("judge: a ratio is judged on positive samples only (a and b); judge a shift instead")
    x, y = np.asarray(x, float), np.asarray(y, float)
    _check_span(x, y, scale)
    decided = (_signed_rank if paired else _rank_sum)(x, y, scale, margin, floor, level)
    verdict = replace(decided, left_out=left_out, inputs=(x, y, paired, control))
    if control is not None:
        checked = control if isinstance(control, Verdict) else _judged(*control, paired, scale, None, None, None,
                                                                       ALPHA)
        if checked.differs:
            return replace(verdict, outcome=DISTURBED, control=checked)
    return verdict


def _size(name, value, default, scale):
    """margin or floor checked: a ratio's above 1 (floor: from 1), a shift's from 0, both finite."""
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"judge: {name}={value!r} is not a number") from None
    least = 1.0 if scale == "ratio" else 0.0
    if not math.isfinite(number) or number < least or (name == "margin" and scale == "ratio" and number == least):
        kind = "a ratio above 1" if name == "margin" and scale == "ratio" else f"a finite {scale} from {least:g}"
        raise ValueError(f"judge: {name}={value!r} is not {kind}")
    return number


def _kept(a, b, paired):
    """The values judged of a and b, and how many NaN or infinite ones (pairs, when paired) were left out."""
    a, b = _numbers("a", a), _numbers("b", b)
    if paired and len(a) != len(b):
        raise ValueError(f"judge: paired samples must be as many: a has {len(a)}, b has {len(b)}")
    if paired:
        kept = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
        finite = [(x, y) for x, y in kept if math.isfinite(x) and math.isfinite(y)]
        return [x for x, _ in finite], [y for _, y in finite], len(kept) - len(finite)
    a, b = [x for x in a if x is not None], [y for y in b if y is not None]
    x, y = [v for v in a if math.isfinite(v)], [v for v in b if math.isfinite(v)]
    return x, y, len(a) + len(b) - len(x) - len(y)


def _numbers(name, values):
    """values as floats (None kept): one that is no number is refused, naming its argument."""
    out = []
    for v in values:
        try:
            out.append(None if v is None else float(v))
        except (TypeError, ValueError):
            raise ValueError(f"judge: {name} holds {v!r}, which is not a number") from None
    return out


def _check_span(x, y, scale):
    """Refuse samples so far apart that a ratio (or shift) between them is no float."""
    if not len(x) or not len(y):
        return
    on_x, on_y = _on_scale(x, scale), _on_scale(y, scale)
    with np.errstate(over="ignore"):
        span = max(abs(on_x.max() - on_y.min()), abs(on_y.max() - on_x.min()))
    if scale == "ratio" and span > LOG_MAX or not math.isfinite(span):
        raise ValueError(f"judge: a ({x.min():.3g} to {x.max():.3g}) and b ({y.min():.3g} to {y.max():.3g}) are too "
                         f"far apart for a {scale} between them to be a number")


def _on_scale(values, scale):
    """The samples as the test ranks them: their logs for a ratio, themselves for a shift."""
    return np.log(values) if scale == "ratio" else values


def _off_scale(v, scale):
    """A value on the test's scale back in the samples' terms: a ratio from a log, a shift as it is."""
    if scale != "ratio":
        return float(v)
    return math.exp(v) if math.isfinite(v) else (math.inf if v > 0 else 0.0)


def _decide(p, level, effect, low, high, scale, margin, floor, single):
    """DIFFERS when the test rejects at level and the effect is beyond the floor; SAME when the interval lies inside
    the margin and neither side is a single sample; CANNOT_TELL otherwise."""
    if scale == "ratio":
        beyond = abs(math.log(effect)) >= math.log(floor) if effect > 0 else False
        inside = 1 / margin <= low and high <= margin
    else:
        beyond, inside = abs(effect) >= floor, -margin <= low and high <= margin
    if p is not None and p < level and beyond:
        return DIFFERS
    return SAME if margin and inside and not single else CANNOT_TELL


def _rank_sum(a, b, scale, margin, floor, level):
    """Mann-Whitney U, ties broken against "differs", and the Hodges-Lehmann shift with the interval that inverts the
    same test: 0 lies outside the interval exactly when p < level."""
    m, n = len(a), len(b)
    if not m or not n:
        return Verdict(CANNOT_TELL, RANK_SUM, m, n, None, math.nan, _off_scale(-math.inf, scale), math.inf, scale,
                       margin, floor=floor, level=level)
    diffs = np.sort(np.subtract.outer(_on_scale(a, scale), _on_scale(b, scale)).ravel())
    above, tied = int((diffs > 0).sum()), int((diffs == 0).sum())
    p = rank_sum_p(m, n, _against_differs(above, tied, m * n))
    c = rank_sum_critical(m, n, level)
    low, high = (diffs[c], diffs[m * n - 1 - c]) if c >= 0 else (-math.inf, math.inf)
    low, high, effect = (_off_scale(v, scale) for v in (low, high, float(np.median(diffs))))
    outcome = _decide(p, level, effect, low, high, scale, margin, floor, min(m, n) == 1)
    return Verdict(outcome, RANK_SUM, m, n, p, effect, low, high, scale, margin, floor=floor, level=level)


def _signed_rank(a, b, scale, margin, floor, level):
    """Wilcoxon signed-rank on the pairs' differences, ties and zeros broken against "differs", and the
    Hodges-Lehmann shift over their Walsh averages with the interval that inverts the same test."""
    d = _on_scale(a, scale) - _on_scale(b, scale)
    n = len(d)
    above = int((d > 0).sum())
    if not n:
        return Verdict(CANNOT_TELL, SIGNED_RANK, 0, 0, None, math.nan, _off_scale(-math.inf, scale), math.inf, scale,
                       margin, above, floor=floor, level=level)
    # Halved before adding, so that two differences near the float's limit do not overflow.
    walsh = np.sort((d[:, None] / 2 + d[None, :] / 2)[np.triu_indices(n)])
    total = len(walsh)
    # Untied, the positive ranks sum to the number of positive Walsh averages; a zero one may fall either way.
    p = signed_rank_p(n, _against_differs(int((walsh > 0).sum()), int((walsh == 0).sum()), total))
    c = signed_rank_critical(n, level)
    low, high = (walsh[c], walsh[total - 1 - c]) if c >= 0 else (-math.inf, math.inf)
    low, high, effect = (_off_scale(v, scale) for v in (low, high, float(np.median(walsh))))
    outcome = _decide(p, level, effect, low, high, scale, margin, floor, n == 1)
    return Verdict(outcome, SIGNED_RANK, n, n, p, effect, low, high, scale, margin, above, floor=floor, level=level)


# A family: the verdicts of one block (an answer, a lesson) judged together. Each comparison is judged again at the
# level of its Holm step, so its interval agrees with its outcome, and says its Holm-adjusted p.

_FAMILY = contextvars.ContextVar("tfgraphs_family", default=None)


def _key(verdict):
    """What names one comparison: its verdict alone, with the samples it was judged on."""
    ins = verdict.inputs
    samples = b"" if ins is None else ins[0].tobytes() + b"|" + ins[1].tobytes()
    return json.dumps(replace(verdict, family=1, adjusted=None).to_dict(), sort_keys=True), samples


def holm(verdicts):
    """The verdicts as one family, in their order: each p adjusted by Holm's step-down over all of them, and each
    comparison judged again at its step's level, ALPHA / (k - step), which rejects exactly when that p is below ALPHA.
    A verdict without its samples (read back from a document) stands as it is."""
    judged = [v for v in verdicts if v.inputs is not None]
    k = len(judged)
    if k < 2:
        return list(verdicts)
    order = sorted(range(k), key=lambda i: 1.0 if judged[i].p is None else judged[i].p)
    again, running, stopped = {}, 0.0, None
    for step, i in enumerate(order):
        p = 1.0 if judged[i].p is None else judged[i].p
        running = max(running, min(1.0, (k - step) * p))
        if stopped is None and p >= ALPHA / (k - step):
            stopped = step   # Holm stops here: this and every later step is held to this step's level
        x, y, paired, control = judged[i].inputs
        v = judged[i]
        level = ALPHA / (k - (step if stopped is None else stopped))
        once = _judged(x, y, paired, v.scale, v.margin, v.floor, control, level)
        again[id(v)] = replace(once, family=k, adjusted=running, left_out=v.left_out)
    return [again.get(id(v), v) for v in verdicts]


@contextmanager
def adjusted(*families):
    """Within it, judge() gives each comparison of these families (lists of verdicts) as holm() judged its own family
    together."""
    table = {}
    for verdicts in families:
        unique = list({_key(v): v for v in verdicts}.values())
        table.update({_key(v): a for v, a in zip(unique, holm(unique))})
    token = _FAMILY.set(table)
    try:
        yield
    finally:
        _FAMILY.reset(token)
