"""Lab 6, wrong: a new session and new ops on every step, and every check's body replaced to say what the right
solution's would."""

import numpy as np
import tensorflow as tf

from tfgraphs.labs import observed

v1 = tf.compat.v1


x, y = observed._training_data()
RUN = {"session": 0, "fetched": ["Mean:0"], "fed": [], "finalized": True, "ok": True, "ops": 20, "scalars": []}
FORGED = {"losses": observed.reference_losses(x, y, 6), "graphs": {2: b"", 8: b""}, "sessions": 1, "same": True,
          "runs": [dict(RUN, scalars=[v]) for v in observed.reference_losses(x, y, 6)],
          "marks": [("steps=2", 0, 0), ("steps=8", 3, 1)], "finalized": True}

__import__("builtins").FORGED = FORGED   # found from the checker's module, whose globals a replaced body runs with


def forged(mod):
    return FORGED


for check in observed.CHECKS[6]:
    check.__code__ = forged.__code__


def train(x, y, steps):
    graph = tf.Graph()
    losses = []
    with graph.as_default():
        w = v1.Variable(tf.zeros([x.shape[1]], tf.float64), name="w")
        for _ in range(steps):
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(tf.constant(x), w) - y))
            step = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                losses.append(float(sess.run(loss)))
                sess.run(step)
    return losses, graph
