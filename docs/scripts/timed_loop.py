"""The seed network fed through a placeholder, run RUNS times; prints each run's seconds as JSON on the last line."""
import json
import sys
import time

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()   # TF1 graph mode whether or not it runs under watch --tf1

batch, runs = int(sys.argv[1]), int(sys.argv[2])
x = np.random.random([batch, 32, 32, 1])
w = np.random.random([3, 3, 1, 6])

X = tf.placeholder(dtype=tf.float64, shape=[None, 32, 32, 1])
W = tf.placeholder(dtype=tf.float64, shape=[3, 3, 1, 6])
A = tf.nn.relu(tf.nn.avg_pool(tf.nn.conv2d(X, W, strides=[1, 1, 1, 1], padding="VALID"),
                              ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"))

seconds = []
with tf.Session() as sess:
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(A, feed_dict={X: x, W: w})
        seconds.append(time.perf_counter() - start)
print(json.dumps(seconds))
