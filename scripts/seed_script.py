"""The seed question's own script, one approach per run, as its answer timed it: eleven sess.run calls, each printed.

    python scripts/seed_script.py numpy            # approach 1: NumPy arrays passed straight to the ops
    python scripts/seed_script.py constant         # approach 2: tf.constant
    python scripts/seed_script.py placeholder      # approach 3: tf.placeholder and feed_dict
    python scripts/seed_script.py constant --batch 60000   # the seed's size

TF1 graph mode through tf.compat.v1, at batch 6000 unless told; nothing of tfgraphs is imported.
"""

import argparse
import time

APPROACHES = ("numpy", "constant", "placeholder")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("approach", choices=APPROACHES)
    p.add_argument("--batch", type=int, default=6000)
    p.add_argument("--runs", type=int, default=11)
    args = p.parse_args()

    import numpy as np
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    x = np.random.random([args.batch, 32, 32, 1])
    w = np.random.random([3, 3, 1, 6])
    feed = {}
    if args.approach == "numpy":
        X, W = x, w
    elif args.approach == "constant":
        X, W = tf.constant(x, dtype=tf.float64), tf.constant(w, dtype=tf.float64)
    else:
        X = tf.placeholder(dtype=tf.float64, shape=[None, 32, 32, 1])
        W = tf.placeholder(dtype=tf.float64, shape=[3, 3, 1, 6])
        feed = {X: x, W: w}
    C = tf.nn.conv2d(X, W, strides=[1, 1, 1, 1], padding="VALID")
    P = tf.nn.avg_pool(C, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    A = tf.nn.relu(P)
    with tf.Session() as sess:
        for i in range(args.runs):
            ts = time.time()
            sess.run(A, feed_dict=feed)
            print(f"run {i + 1}: {time.time() - ts:.3f} s")


if __name__ == "__main__":
    main()
