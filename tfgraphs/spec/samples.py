"""The rank tests the judge uses, and the fewest samples at which each can tell two conditions apart: the defaults of
--trials and --count are set from them."""

RANK_SUM = "Mann-Whitney U"
SIGNED_RANK = "Wilcoxon signed-rank"
# The fewest samples at which each test can reject at ALPHA: 4 a side (smallest two-sided p 2/70), 6 pairs (2/64).
FEWEST = {RANK_SUM: 4, SIGNED_RANK: 6}
