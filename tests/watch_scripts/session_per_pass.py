"""A new session on every pass of the loop, each running the same graph: every pass pays a session and first runs."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float64, [None, 8])
total = tf.reduce_sum(tf.nn.relu(tf.matmul(x, tf.ones([8, 8], tf.float64))))

for step in range(6):
    with tf.Session() as sess:   # a session every pass
        for _ in range(3):
            sess.run(total, feed_dict={x: np.random.random([4, 8])})
print("done")
