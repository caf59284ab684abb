"""A wrong lab 6 solution: no graph grows, because every step builds a new graph and session from NumPy's w."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
LEARNING_RATE = 0.1


def train(x, y, steps):
    w_value, losses, graph = np.zeros(x.shape[1]), [], None
    for _ in range(steps):
        graph = tf.Graph()
        with graph.as_default():
            w = v1.Variable(w_value, name="w")
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(tf.constant(x), w) - y))
            step = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
            init = v1.global_variables_initializer()
        graph.finalize()
        with v1.Session(graph=graph) as sess:
            sess.run(init)
            loss_value, _ = sess.run([loss, step])
            w_value = sess.run(w)
        losses.append(float(loss_value))
    return losses, graph
