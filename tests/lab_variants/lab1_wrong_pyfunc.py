"""Wrong: the right numbers the wrong way. X is pulled from Python on every run; nothing is loaded."""

import numpy as np
import tensorflow as tf

from lab1_common import network

v1 = tf.compat.v1


def build_fed(x, w):
    # Embeds X through a placeholder's default value: still a Const in the graph.
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder_with_default(x, [None, 32, 32, 1])
        out = network(xp, tf.constant(w))
    return graph, out, {xp: x}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xs = tf.numpy_function(lambda: np.asarray(x), [], tf.float64)
        out = network(tf.reshape(xs, x.shape), tf.constant(w))
    return graph, out, tf.no_op(), {}
