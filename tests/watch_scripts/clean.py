"""Fed through a placeholder, new data on every call, ops made once, one tf.function shape: nothing to find."""
import sys

import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float64, [None, 32, 32, 1])
total = tf.reduce_sum(tf.nn.relu(x))

with tf.Session() as sess:
    for step in range(3):
        sess.run(total, feed_dict={x: np.random.random([40, 32, 32, 1])})
print("args", sys.argv[1:], __name__)
