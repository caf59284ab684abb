"""Wrong: a fixed batch in the placeholder, max pooling, and a variable filled from a copy of X in the graph."""

import tensorflow as tf

from lab1_common import network

v1 = tf.compat.v1


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, x.shape)
        out = network(xp, tf.constant(w), pool=tf.nn.max_pool2d)
    return graph, out, {xp: x}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xv = v1.Variable(tf.constant(x), trainable=False)
        out = network(xv, tf.constant(w))
    return graph, out, xv.initializer, {}
