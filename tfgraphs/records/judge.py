"""The one judge of "differs", with the statistics it and the pages rest on: scipy's rank tests, the effect with its
95% interval, three outcomes and how a verdict is phrased, and summary statistics of repeated timings."""

import functools
import math
import statistics
from dataclasses import asdict, dataclass, replace

import numpy as np

from tfgraphs.spec.options import ALPHA, FEWEST, RANK_SUM, SIGNED_RANK

# scipy.stats is imported by the functions that test, so that --help and the option checks never load it.

MARGIN = 1.25         # "no difference beyond" this ratio (x0.8 to x1.25) unless a finding names its own size

DIFFERS = "differs"
SAME = "no difference"
CANNOT_TELL = "cannot tell"
DISTURBED = "disturbed run"

PERMUTED = 40          # tied samples up to this many values in all are tested by permutation
PERMUTATIONS = 20_000  # enough to enumerate every arrangement of 8 against 8 (12,870); seeded beyond


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


def rank_sum_p(x, y):
    """Two-sided Mann-Whitney U p-value of x against y."""
    from scipy import stats
    method = _method(np.concatenate([x, y]), min(len(x), len(y)))
    return _p(stats.mannwhitneyu(x, y, alternative="two-sided", method=method))


def signed_rank_p(d):
    """Two-sided Wilcoxon signed-rank p-value of the differences d."""
    from scipy import stats
    return _p(stats.wilcoxon(d, alternative="two-sided", method=_method(np.abs(d), len(d))))


def _p(result):
    """The test's p-value; 1 where every value ties and the test has nothing to rank."""
    p = float(result.pvalue)
    return 1.0 if math.isnan(p) else p


def _method(pooled, smallest):
    """'auto' (exact when small and untied), or a seeded permutation test where ties would send a small sample to
    the normal approximation, which can reject where no ordering of the samples could (scipy permutes a side only
    from two values up; one value a side cannot be rejected by either)."""
    from scipy import stats
    if len(np.unique(pooled)) == len(pooled) or len(pooled) > PERMUTED or smallest < 2:
        return "auto"
    return stats.PermutationMethod(n_resamples=PERMUTATIONS, random_state=0)


@functools.lru_cache(maxsize=None)
def rank_sum_critical(m, n):
    """The largest U the test rejects at ALPHA for m and n samples (-1 when none): the interval's ends are the
    pairwise differences just inside it. Read off scipy's own p-values for a made-up pair of samples with that U."""
    from scipy import stats
    return _largest(lambda u: stats.mannwhitneyu(*_with_u(m, n, u), alternative="two-sided").pvalue, m * n // 2)


@functools.lru_cache(maxsize=None)
def signed_rank_critical(n):
    """The largest signed-rank sum the test rejects at ALPHA for n pairs (-1 when none), read off scipy as above."""
    from scipy import stats
    return _largest(lambda t: stats.wilcoxon(_with_t(n, t), alternative="two-sided").pvalue, n * (n + 1) // 4)


def _largest(p_of, top):
    """The largest k in 0..top with p_of(k) < ALPHA, p_of rising with k; -1 when p_of(0) is not."""
    lo, hi = -1, top
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if p_of(mid) < ALPHA:
            lo = mid
        else:
            hi = mid - 1
    return lo


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


@dataclass(frozen=True)
class Verdict:
    """What the judge decided about a against b, and everything it rests on."""

    outcome: str          # DIFFERS, SAME, CANNOT_TELL or DISTURBED
    method: str           # RANK_SUM (independent samples) or SIGNED_RANK (pairs)
    n_a: int
    n_b: int
    p: float | None       # None when a side has no sample
    effect: float         # a over b: the ratio of medians (scale "ratio") or the shift, in the samples' unit
    low: float            # the effect's 95% interval; -inf/inf (0/inf for a ratio) where n cannot bound it
    high: float
    scale: str = "ratio"  # "ratio" (Hodges-Lehmann on logs) or "shift" (Hodges-Lehmann on the values)
    margin: float = MARGIN
    above: int | None = None        # pairs: how many of the n_a pairs had a larger than b
    control: "Verdict | None" = None  # the control's own verdict, kept when it disturbed this one

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
        """'n=19 and 20', or 'n=20 pairs'."""
        if self.method == SIGNED_RANK:
            return f"n={self.n_a} pair{'' if self.n_a == 1 else 's'}"
        return f"n={self.n_a} and {self.n_b}"

    def detail(self, unit=None, samples=True):
        """'x3,000, 95% CI x1,100 to x5,000; n=19 and 20, p=0.0001': the effect, its interval, n and p."""
        show = ratio_text if self.scale == "ratio" else (unit or _plain)
        interval = (f"95% CI {self.ends(unit)}" if self.bounded else "no 95% CI at this n")
        p = "" if self.p is None else f"p={self.p:.2g}" if self.p >= 0.001 else "p<0.001"
        effect = "no effect measured" if math.isnan(self.effect) else show(self.effect)
        tail = ", ".join(part for part in (self.samples if samples else "", p) if part)
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
        fewest = FEWEST[self.method]
        if min(self.n_a, self.n_b) < fewest:
            need = f"{fewest} pairs" if self.method == SIGNED_RANK else f"{fewest} a side"
            return f"cannot tell with {self.samples} (a rank test needs {need})"
        return f"cannot tell with {self.samples}"

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
        """The outcome with its effect, interval and n, without p, for an answer line: 'differs (x3.18, 95% CI
        x2.1 to x6.9; n=8 and 8)', 'cannot tell with n=1 and 1 (no 95% CI)'."""
        if self.outcome == DISTURBED:
            return "disturbed run (its control moved)"
        if self.outcome == CANNOT_TELL and not self.bounded:
            return f"cannot tell with {self.samples} (no 95% CI)"
        interval = self.effect_text(unit)
        if self.outcome == CANNOT_TELL:
            return f"cannot tell with {self.samples} ({interval})"
        return f"{self.phrase(unit)} ({interval}; {self.samples})"

    def effect_text(self, unit=None):
        """'x3.18, 95% CI x2.1 to x6.9': the effect and its interval alone."""
        show = ratio_text if self.scale == "ratio" else (unit or _plain)
        return f"{show(self.effect)}, 95% CI {self.ends(unit)}"

    def ends(self, unit=None):
        """'x2.10 to x6.90': the interval's ends, a ratio's rounded outward."""
        if self.scale == "ratio":
            return f"{ratio_text(self.low, 'down')} to {ratio_text(self.high, 'up')}"
        show = unit or _plain
        return f"{show(self.low)} to {show(self.high)}"

    def to_dict(self):
        d = asdict(self)
        d["control"] = None if self.control is None else self.control.to_dict()
        return {k: (_finite(v) if isinstance(v, float) else v) for k, v in d.items()}

    @classmethod
    def from_dict(cls, d):
        d = dict(d)
        d["control"] = None if d.get("control") is None else cls.from_dict(d["control"])
        # An unbounded end was written as None: the low end of a ratio is 0, of a shift -inf.
        unbounded = {"low": 0.0 if d.get("scale", "ratio") == "ratio" else -math.inf, "high": math.inf,
                     "effect": math.nan}
        for k, end in unbounded.items():
            d[k] = end if d[k] is None else float(d[k])
        return cls(**d)


def _finite(v):
    """JSON has no infinity: an unbounded end is written as None."""
    return v if math.isfinite(v) else None


def _plain(v):
    """A shift in no unit: three significant figures with its sign."""
    return f"{v:+.3g}"


def ratio_text(r, way=None):
    """'x3,000', 'x12', 'x1.68', 'x0.25': a ratio to the precision a reader uses; way "down" or "up" rounds an
    interval's end outward, so the printed interval holds the computed one."""
    if not r > 0 or not math.isfinite(r):
        return f"x{r}"
    step = _step(r)
    value = _rounded(r, step, way)
    if _step(value) != step:   # 9.999 rounds up to 10.00: written at 10's precision, x10.0
        step = _step(value)
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


def judge(a, b, *, paired=False, scale="ratio", margin=None, control=None):
    """a against b: paired (the same step, the same length) or independent, None values left out.

    scale "ratio" judges a/b on logs (timings, byte counts); "shift" judges a-b in the samples' unit (values that may
    be zero or negative). control, when given, is the (a, b) of work that must not differ, judged the same way: if it
    differs, the verdict is DISTURBED and carries the control's verdict.
    """
    margin = margin if margin is not None else (MARGIN if scale == "ratio" else 0.0)
    if paired:
        kept = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
        a, b = [x for x, _ in kept], [y for _, y in kept]
    else:
        a, b = [x for x in a if x is not None], [y for y in b if y is not None]
    if scale == "ratio" and any(v <= 0 for v in (*a, *b)):
        raise ValueError("a ratio is judged on positive samples only; judge a shift instead")
    verdict = (_signed_rank if paired else _rank_sum)(np.asarray(a, float), np.asarray(b, float), scale, margin)
    if control is not None:
        checked = control if isinstance(control, Verdict) else judge(*control, paired=paired, scale=scale)
        if checked.differs:
            return replace(verdict, outcome=DISTURBED, control=checked)
    return verdict


def _on_scale(values, scale):
    """The samples as the test ranks them: their logs for a ratio, themselves for a shift."""
    return np.log(values) if scale == "ratio" else values


def _off_scale(v, scale):
    """A value on the test's scale back in the samples' terms: a ratio from a log, a shift as it is."""
    if scale != "ratio":
        return float(v)
    return math.exp(v) if math.isfinite(v) else (math.inf if v > 0 else 0.0)


def _decide(p, low, high, scale, margin):
    """DIFFERS when the test rejects; SAME when the interval lies inside the margin; CANNOT_TELL otherwise."""
    if p is not None and p < ALPHA:
        return DIFFERS
    inside = (1 / margin <= low and high <= margin) if scale == "ratio" else (-margin <= low and high <= margin)
    return SAME if margin and inside else CANNOT_TELL


def _rank_sum(a, b, scale, margin):
    """Mann-Whitney U, and the Hodges-Lehmann shift with the interval that inverts the same test."""
    m, n = len(a), len(b)
    if not m or not n:
        return Verdict(CANNOT_TELL, RANK_SUM, m, n, None, math.nan, _off_scale(-math.inf, scale), math.inf, scale,
                       margin)
    x, y = _on_scale(a, scale), _on_scale(b, scale)
    p = rank_sum_p(x, y)
    diffs = np.sort(np.subtract.outer(x, y).ravel())
    c = rank_sum_critical(m, n)
    low, high = (diffs[c], diffs[m * n - 1 - c]) if c >= 0 else (-math.inf, math.inf)
    effect = float(np.median(diffs))
    low, high, effect = (_off_scale(v, scale) for v in (low, high, effect))
    return Verdict(_decide(p, low, high, scale, margin), RANK_SUM, m, n, p, effect, low, high, scale, margin)


def _signed_rank(a, b, scale, margin):
    """Wilcoxon signed-rank on the pairs' differences, and the Hodges-Lehmann shift over their Walsh averages."""
    d = _on_scale(a, scale) - _on_scale(b, scale)
    n = len(d)
    above = int((d > 0).sum())
    if not n or not d.any():
        effect = _off_scale(0.0, scale) if n else math.nan
        return Verdict(CANNOT_TELL, SIGNED_RANK, n, n, None, effect, _off_scale(-math.inf, scale), math.inf, scale,
                       margin, above)
    p = signed_rank_p(d)
    walsh = np.sort((d[:, None] + d[None, :])[np.triu_indices(n)] / 2)
    c = signed_rank_critical(n)
    low, high = (walsh[c], walsh[len(walsh) - 1 - c]) if c >= 0 else (-math.inf, math.inf)
    effect = float(np.median(walsh))
    low, high, effect = (_off_scale(v, scale) for v in (low, high, effect))
    return Verdict(_decide(p, low, high, scale, margin), SIGNED_RANK, n, n, p, effect, low, high, scale, margin,
                   above)
