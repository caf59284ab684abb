"""Lab 1, wrong: the starter's embedded X, and the checker's own byte count replaced so the graph reads as 500 bytes."""

import tensorflow as tf

import tfgraphs.labs.rerun as c

c._graph_bytes = lambda graph: 500


def network(x, w):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.nn.relu(pool)


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        out = network(tf.constant(x), tf.constant(w))
    return graph, out, {}


def build_loaded(x, w):
    raise NotImplementedError
