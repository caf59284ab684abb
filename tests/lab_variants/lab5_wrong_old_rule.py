"""Wrong: one slow cold request widens the cold range past the gap, and the answer follows that range, not the judge."""

COLD_MS = [9.4, 9.5, 9.6, 9.7, 9.8, 9.9, 10.0, 31.0]
WARM_MS = [6.5, 6.6, 6.7, 6.8, 6.9, 7.0, 7.1, 7.2]
JUDGE_SAID = "no difference"
