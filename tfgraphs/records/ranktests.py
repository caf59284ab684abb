"""scipy's rank tests as the judge calls them: their p-values, and the critical values that bound their intervals."""

import functools
import math

import numpy as np
from scipy import stats

from tfgraphs.spec.samples import ALPHA

PERMUTED = 40          # tied samples up to this many values in all are tested by permutation
PERMUTATIONS = 20_000  # enough to enumerate every arrangement of 8 against 8 (12,870); seeded beyond


def rank_sum_p(x, y):
    """Two-sided Mann-Whitney U p-value of x against y."""
    method = _method(np.concatenate([x, y]), min(len(x), len(y)))
    return _p(stats.mannwhitneyu(x, y, alternative="two-sided", method=method))


def signed_rank_p(d):
    """Two-sided Wilcoxon signed-rank p-value of the differences d."""
    return _p(stats.wilcoxon(d, alternative="two-sided", method=_method(np.abs(d), len(d))))


def _p(result):
    """The test's p-value; 1 where every value ties and the test has nothing to rank."""
    p = float(result.pvalue)
    return 1.0 if math.isnan(p) else p


def _method(pooled, smallest):
    """'auto' (exact when small and untied), or a seeded permutation test where ties would send a small sample to
    the normal approximation, which can reject where no ordering of the samples could (scipy permutes a side only
    from two values up; one value a side cannot be rejected by either)."""
    if len(np.unique(pooled)) == len(pooled) or len(pooled) > PERMUTED or smallest < 2:
        return "auto"
    return stats.PermutationMethod(n_resamples=PERMUTATIONS, random_state=0)


@functools.lru_cache(maxsize=None)
def rank_sum_critical(m, n):
    """The largest U the test rejects at ALPHA for m and n samples (-1 when none): the interval's ends are the
    pairwise differences just inside it. Read off scipy's own p-values for a made-up pair of samples with that U."""
    return _largest(lambda u: stats.mannwhitneyu(*_with_u(m, n, u), alternative="two-sided").pvalue, m * n // 2)


@functools.lru_cache(maxsize=None)
def signed_rank_critical(n):
    """The largest signed-rank sum the test rejects at ALPHA for n pairs (-1 when none), read off scipy as above."""
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
