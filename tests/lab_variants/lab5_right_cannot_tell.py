"""Right: overlapping samples at 4 a side, answered as the judge says of them."""

COLD_MS = [20.0, 20.1, 20.2, 9.0]
WARM_MS = [10.0, 6.0, 6.1, 6.2]
JUDGE_SAID = "cannot tell"
