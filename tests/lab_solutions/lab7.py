"""Lab 7 reference solution: the data loaded once into variables, every op made before the loop, graph finalized."""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
FEATURES = 32
STEPS = 30
EVAL_EVERY = 10
LEARNING_RATE = 0.1


def make_data(seed=0):
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal(FEATURES)
    x = rng.standard_normal((20_000, FEATURES))
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))
    x_val = rng.standard_normal((5_000, FEATURES))
    y_val = x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))
    return x, y, x_val, y_val


def loaded(array, name):
    """(a variable that holds array after the initializer, the placeholder its initializer is fed through)."""
    initial = v1.placeholder(tf.float64, array.shape, name=f"{name}_initial")
    return v1.Variable(initial, trainable=False, name=name), initial


def mse(features, w, labels):
    return tf.reduce_mean(tf.square(tf.linalg.matvec(features, w) - labels))


def main():
    arrays = dict(zip(("x", "y", "x_val", "y_val"), make_data()))
    graph = tf.Graph()
    with graph.as_default():
        held = {name: loaded(array, name) for name, array in arrays.items()}
        x, y, x_val, y_val = (held[name][0] for name in arrays)
        w = v1.Variable(tf.zeros([FEATURES], tf.float64), name="w")
        train = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(mse(x, w, y))
        val_loss = mse(x_val, w, y_val)
        init = v1.global_variables_initializer()
    graph.finalize()
    with v1.Session(graph=graph) as sess:
        sess.run(init, feed_dict={held[name][1]: array for name, array in arrays.items()})
        for step in range(1, STEPS + 1):
            sess.run(train)
            if step % EVAL_EVERY == 0:
                value = sess.run(val_loss)
                print(f"step {step}: validation loss {value:.6f}")
    return value


if __name__ == "__main__":
    main()
