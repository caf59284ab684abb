"""Wrong: the data loaded once into variables, but the validation loss still made inside the loop."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
FEATURES, STEPS, EVAL_EVERY, LEARNING_RATE = 32, 30, 10, 0.1


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal(FEATURES)
    x = rng.standard_normal((20_000, FEATURES))
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))
    x_val = rng.standard_normal((5_000, FEATURES))
    y_val = x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))
    return x, y, x_val, y_val


def mse(features, w, labels):
    return tf.reduce_mean(tf.square(tf.linalg.matvec(features, w) - labels))


def loaded(array, trainable=False):
    initial = v1.placeholder(tf.float64, array.shape)
    return v1.Variable(initial, trainable=trainable), initial


def main():
    arrays = make_data()
    graph = tf.Graph()
    with graph.as_default():
        held = [loaded(a) for a in arrays]
        x, y, x_val, y_val = (v for v, _ in held)
        w = v1.Variable(tf.zeros([FEATURES], tf.float64))
        train = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(mse(x, w, y))
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer(), {p: a for (_, p), a in zip(held, arrays)})
            for step in range(1, STEPS + 1):
                sess.run(train)
                if step % EVAL_EVERY == 0:
                    value = sess.run(mse(x_val, w, y_val))
    return value


if __name__ == "__main__":
    main()
