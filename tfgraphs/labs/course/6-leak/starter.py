"""Lab 6 starter: find and fix a leaky training loop, then guard it with graph.finalize().

Check with: tfgraphs lab check 6 lab6/starter.py
"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
LEARNING_RATE = 0.1


def train(x, y, steps):
    """Fit y ~ x @ w by gradient descent from w = 0; return (the loss before each step, the graph it ran in)."""
    graph = tf.Graph()
    with graph.as_default():
        xs = v1.placeholder(tf.float64, [None, x.shape[1]], name="x")
        ys = v1.placeholder(tf.float64, [None], name="y")
        w = v1.Variable(tf.zeros([x.shape[1]], tf.float64), name="w")
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
        losses = []
        # TODO: this loop works, but it gets slower with every step. Find out why (print
        # len(graph.get_operations()) each step), fix it, and call graph.finalize() before the loop.
        for _ in range(steps):
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(xs, w) - ys))
            step = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
            loss_value, _ = sess.run([loss, step], feed_dict={xs: x, ys: y})
            losses.append(float(loss_value))
        sess.close()
    return losses, graph


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 5))
    y = x @ np.arange(1.0, 6.0)
    losses, graph = train(x, y, 50)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3g} in {len(losses)} steps; the graph has "
          f"{len(graph.get_operations())} ops; finalized: {graph.finalized}")
