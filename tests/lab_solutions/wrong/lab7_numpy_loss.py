"""Lab 7, wrong: one Session.run for show, and the validation loss computed by NumPy."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
FEATURES, STEPS, LEARNING_RATE = 32, 30, 0.1


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal(FEATURES)
    x = rng.standard_normal((20_000, FEATURES))
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))
    x_val = rng.standard_normal((5_000, FEATURES))
    y_val = x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))
    return x, y, x_val, y_val


def main():
    x, y, x_val, y_val = make_data()
    with tf.Graph().as_default(), v1.Session() as sess:
        sess.run(tf.constant(1.0))
    w = np.zeros(FEATURES)
    for _ in range(STEPS):
        w = w - LEARNING_RATE * 2 * x.T @ (x @ w - y) / len(y)
    return float(np.mean((x_val @ w - y_val) ** 2))


if __name__ == "__main__":
    print(main())
