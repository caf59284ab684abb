"""Wrong: the training arrays fed through placeholders on every step instead of embedded."""

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
    x, y, x_val, y_val = make_data()
    graph = tf.Graph()
    with graph.as_default():
        xs, ys = v1.placeholder(tf.float64, [None, FEATURES]), v1.placeholder(tf.float64, [None])
        (val_x, val_x_in), (val_y, val_y_in) = loaded(x_val), loaded(y_val)
        w = v1.Variable(tf.zeros([FEATURES], tf.float64))
        train = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(mse(xs, w, ys))
        val_loss = mse(val_x, w, val_y)
        init = v1.global_variables_initializer()
    graph.finalize()
    with v1.Session(graph=graph) as sess:
        sess.run(init, {val_x_in: x_val, val_y_in: y_val})
        for step in range(1, STEPS + 1):
            sess.run(train, {xs: x, ys: y})
            if step % EVAL_EVERY == 0:
                value = sess.run(val_loss)
    return value


if __name__ == "__main__":
    main()
