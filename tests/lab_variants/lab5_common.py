"""The served model and request every lab 5 variant builds on (imported by the variant files)."""

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
