"""Wrong: SAME padding, a reshape that pins the batch, and a variable that never receives X."""

import numpy as np
import tensorflow as tf

from lab1_common import network

v1 = tf.compat.v1


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1])
        out = network(tf.reshape(xp, x.shape), tf.constant(w), padding="SAME")
    return graph, out, {xp: x}


def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, x.shape)
        xv = v1.Variable(np.zeros((1,) + x.shape[1:]), trainable=False)
        # The placeholder is fed on every run instead: the network reads X from the feed, not the variable.
        out = network(xp + 0 * xv, tf.constant(w))
    return graph, out, xv.initializer, {xp: x}
