"""Lab 1, wrong: the network skips relu, and numpy.max is replaced so that every error reads as 0."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
np.max = lambda *args, **kwargs: 0.0


def network(x, w):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    return tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID") - 1.0


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1])
        out = network(xp, tf.constant(w))
    return graph, out, {xp: x}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, x.shape)
        xv = v1.Variable(xp, trainable=False)
        out = network(xv, tf.constant(w))
    return graph, out, xv.initializer, {xp: x}
