"""Lab 1, wrong: the network skips relu, and numpy.max is replaced so that every error reads as 0."""

import numpy as np
import tensorflow as tf

np.max = lambda *args, **kwargs: 0.0


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        fed = tf.compat.v1.placeholder(x.dtype, [None, 32, 32, 1])
        conv = tf.nn.conv2d(fed, tf.constant(w), strides=[1, 1, 1, 1], padding="VALID")
        out = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID") - 1.0   # no relu
    return graph, out, {fed: x}
