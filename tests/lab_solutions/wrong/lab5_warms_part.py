"""A wrong lab 5 solution: it warms only the scores, a different fetch list from the one serve() runs."""

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
    sess.run(fetches["scores"], feed_dict={x: np.zeros((1, 32, 32, 1))})


def first_request_seconds(w, batch, warm):
    graph, x, fetches = build_model(w)
    with v1.Session(graph=graph) as sess:
        if warm:
            warm_up(sess, x, fetches)
        t0 = time.perf_counter()
        serve(sess, x, fetches, batch)
        return time.perf_counter() - t0


# Its Try it at batch 200: the served executor was never warmed, and its answer is what the judge said of that run.
COLD_MS = [12.543, 9.805, 9.609, 11.607, 9.483, 10.024, 10.0, 9.964]
WARM_MS = [10.463, 9.635, 9.73, 9.458, 9.472, 9.95, 9.698, 9.648]
JUDGE_SAID = "no difference"
