"""Right, written differently: variables made from zeros and loaded with Variable.load, the steps run as callables."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
STEPS, EVAL_EVERY, LEARNING_RATE = 30, 10, 0.1


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal(32)
    x = rng.standard_normal((20_000, 32))
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))
    x_val = rng.standard_normal((5_000, 32))
    return x, y, x_val, x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))


def main():
    arrays = make_data()
    graph = tf.Graph()
    with graph.as_default():
        # tf.zeros of a large shape is a Fill op, not a Const holding the zeros.
        x, y, x_val, y_val = held = [v1.Variable(tf.zeros(a.shape, tf.float64), trainable=False) for a in arrays]
        w = v1.Variable(tf.zeros([32], tf.float64))
        loss = tf.reduce_mean((tf.linalg.matvec(x, w) - y) ** 2)
        train = v1.train.GradientDescentOptimizer(learning_rate=LEARNING_RATE).minimize(loss, var_list=[w])
        val_loss = tf.reduce_mean((tf.linalg.matvec(x_val, w) - y_val) ** 2)
        init = v1.global_variables_initializer()
    graph.finalize()
    with v1.Session(graph=graph) as sess:
        sess.run(init)
        for variable, array in zip(held, arrays):
            variable.load(array, sess)
        step, evaluate = sess.make_callable(train), sess.make_callable(val_loss)
        for n in range(STEPS):
            step()
            if (n + 1) % EVAL_EVERY == 0:
                value = evaluate()
    return value


if __name__ == "__main__":
    print(main())
