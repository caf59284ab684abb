"""Right, written differently: NumPy arrays of the samples, and the judge's whole line pasted as the answer."""

import numpy as np

COLD_MS = np.array([12.543, 9.805, 9.609, 11.607, 9.483, 10.024, 10.0, 9.964])
WARM_MS = np.array([10.463, 9.635, 9.73, 9.458, 9.472, 9.95, 9.698, 9.648])
JUDGE_SAID = "No difference beyond 25% (x1.03, 95% CI x0.99 to x1.19; n=8 and 8, p=0.13)"
