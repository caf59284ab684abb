"""Wrong: a float32 placeholder for float64 data, and a network on the initial value's placeholder, not the variable."""

import tensorflow as tf

from lab1_common import network

v1 = tf.compat.v1


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(tf.float32, [None, 32, 32, 1])
        out = network(xp, tf.constant(w))
    return graph, out, {xp: x}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1], name="X")
        xv = v1.Variable(xp, trainable=False)
        out = network(xp, tf.constant(w))
    return graph, out, xv.initializer, {xp: x}
