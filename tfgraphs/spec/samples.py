"""The rank tests the judge uses, and the fewest samples at which each can tell two conditions apart: the defaults of
--trials and --count are set from them."""

import math

ALPHA = 0.05           # two-sided level of every test, and 1 - the confidence of every interval
RANK_SUM = "Mann-Whitney U"
SIGNED_RANK = "Wilcoxon signed-rank"
# The fewest samples at which each test can reject at ALPHA: 4 a side (smallest two-sided p 2/70), 6 pairs (2/64).
FEWEST = {RANK_SUM: 4, SIGNED_RANK: 6}
# One value is placed among N others by a rank test only from N = 40: its smallest two-sided p is 2/(N+1).
ONE_AGAINST = math.floor(2 / ALPHA)
