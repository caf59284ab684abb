"""Wrong: a placeholder left out of the feed_dict, and a variable's initial value passed as the array itself."""

import tensorflow as tf

from lab1_common import network

v1 = tf.compat.v1


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1])
        out = network(xp, tf.constant(w))
    return graph, out, {}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xv = v1.Variable(x, trainable=False)
        out = network(xv, tf.constant(w))
    return graph, out, xv.initializer, {}
