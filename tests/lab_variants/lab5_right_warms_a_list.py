"""Right: warm_up fetches the served tensors as a list, in another order: the same executor as the dict."""

import numpy as np

from lab5_common import build_model, serve   # noqa: F401 (the checks call them from this module)


def warm_up(sess, x, fetches):
    sess.run([fetches["features"], fetches["scores"]], {x: np.zeros((1, 32, 32, 1))})
