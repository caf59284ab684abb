"""A training-like loop: an op made on every step after the first run, and the same large array fed every step."""
import numpy as np
import tensorflow as tf

data = np.ones([40, 32, 32, 1])   # 327,680 bytes
x = tf.placeholder(tf.float64, [None, 32, 32, 1])
total = tf.reduce_sum(x)

with tf.Session() as sess:
    for step in range(4):
        sess.run(total, feed_dict={x: data})
        scaled = tf.reduce_sum(x) * 2.0   # a new op every step
print("done")
