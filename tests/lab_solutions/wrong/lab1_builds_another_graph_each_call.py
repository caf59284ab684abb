"""Lab 1, wrong: build_fed builds another graph on each call, and returns answers computed beside it."""
import numpy as np
import tensorflow as tf
from tfgraphs.spec import network as ref
v1 = tf.compat.v1
CALLS = [0]

def network(x, w):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.nn.relu(pool)

def build_fed(x, w):
    CALLS[0] += 1
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1])
        if CALLS[0] == 1:
            out = tf.identity(xp)                                   # small: nothing computed
        elif CALLS[0] == 2:
            out = tf.constant(ref.reference_forward(x, w))         # answer computed here
            return graph, out, {}
        else:
            x7 = ref.make_data(7, "float64", 1)[0]
            out = tf.identity(tf.constant(ref.reference_forward(x7, w)))  # the judge's "own" batch, guessed
    return graph, out, {xp: x}

def build_loaded(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, x.shape)
        xv = v1.Variable(xp, trainable=False)
        out = network(xv, tf.constant(w))
    return graph, out, xv.initializer, {xp: x}
