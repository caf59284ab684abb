"""A wrong lab 6 solution: the leak is fixed, but nothing guards the loop against the next one."""

import tensorflow as tf

v1 = tf.compat.v1
LEARNING_RATE = 0.1


def train(x, y, steps):
    graph = tf.Graph()
    with graph.as_default():
        xs = v1.placeholder(tf.float64, [None, x.shape[1]], name="x")
        ys = v1.placeholder(tf.float64, [None], name="y")
        w = v1.Variable(tf.zeros([x.shape[1]], tf.float64), name="w")
        loss = tf.reduce_mean(tf.square(tf.linalg.matvec(xs, w) - ys))
        step = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
        losses = []
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(steps):
                loss_value, _ = sess.run([loss, step], feed_dict={xs: x, ys: y})
                losses.append(float(loss_value))
    graph.finalize()   # too late: the loop ran unguarded
    return losses, graph
