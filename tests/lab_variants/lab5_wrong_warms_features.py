"""Wrong: warm_up fetches only the features, an executor serve() never uses; first_request_seconds is right."""

import time

import numpy as np
import tensorflow as tf

from lab5_common import build_model, serve   # noqa: F401 (the checks call them from this module)


def warm_up(sess, x, fetches):
    sess.run(fetches["features"], {x: np.zeros((1, 32, 32, 1))})


def first_request_seconds(w, batch, warm):
    graph, x, fetches = build_model(w)
    with tf.compat.v1.Session(graph=graph) as sess:
        if warm:
            warm_up(sess, x, fetches)
        start = time.perf_counter()
        serve(sess, x, fetches, batch)
        return time.perf_counter() - start
