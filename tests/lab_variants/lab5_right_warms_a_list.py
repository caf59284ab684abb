"""Right: warm_up fetches the served tensors as a list, in another order: the same executor as the dict."""

import time

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def build_model(w):
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float64, [None, 32, 32, 1], name="X")
        conv = tf.nn.conv2d(x, tf.constant(w, name="W"), strides=[1, 1, 1, 1], padding="VALID", name="conv")
        pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool")
        scores = tf.nn.relu(pool, name="scores")
        features = tf.reduce_mean(scores, axis=[1, 2], name="features")
    return graph, x, {"scores": scores, "features": features}


def serve(sess, x, fetches, batch):
    return sess.run(fetches, feed_dict={x: batch})


def warm_up(sess, x, fetches):
    sess.run([fetches["features"], fetches["scores"]], {x: np.zeros((1, 32, 32, 1))})


def first_request_seconds(w, batch, warm):
    graph, x, fetches = build_model(w)
    with v1.Session(graph=graph) as sess:
        if warm:
            warm_up(sess, x, fetches)
        t0 = time.perf_counter()
        serve(sess, x, fetches, batch)
        return time.perf_counter() - t0


# One run of the Try it at batch 200 (8 rounds after a thrown-away first session), as a student copies it.
COLD_MS = [12.434, 10.111, 9.618, 9.442, 9.386, 9.432, 9.479, 9.479]
WARM_MS = [7.762, 7.066, 6.762, 6.672, 6.463, 6.616, 6.678, 7.039]
JUDGE_SAID = "differs"
