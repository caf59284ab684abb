"""Wrong: the medians lie further apart than either range is wide, but one cold request is faster than one warm one:
at 4 a side the judge cannot tell, and the answer claims a difference."""

COLD_MS = [20.0, 20.1, 20.2, 9.0]
WARM_MS = [10.0, 6.0, 6.1, 6.2]
JUDGE_SAID = "differs"
