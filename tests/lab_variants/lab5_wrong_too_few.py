"""Wrong: three rounds of each, too few for a rank test ever to say differs."""

COLD_MS = [9.6, 9.7, 9.8]
WARM_MS = [6.6, 6.7, 6.8]
JUDGE_SAID = "cannot tell"
