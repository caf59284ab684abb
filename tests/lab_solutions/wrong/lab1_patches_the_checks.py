"""Lab 1, wrong: X embedded as a constant, and the checks' limit and judges replaced in the checking process."""

import tensorflow as tf

from tfgraphs.labs import rerun
from tfgraphs.spec import network as reference

rerun.SMALL = 10**12
for check in rerun.CHECKS[1]:
    check.judge = lambda facts: (True, "", "")
reference.max_abs_error = lambda *args, **kwargs: 0.0


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        out = tf.nn.relu(tf.nn.avg_pool2d(tf.nn.conv2d(tf.constant(x), tf.constant(w), [1, 1, 1, 1], "VALID"),
                                          [1, 2, 2, 1], [1, 2, 2, 1], "VALID"))
    return graph, out, {}


def build_loaded(x, w):
    graph, out, _ = build_fed(x, w)
    with graph.as_default():
        init = tf.no_op()
    return graph, out, init, {}
