"""One call site that keeps changing what it fetches, and a tf.function called with a new shape each time."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float64, [None, 8])
heads = [tf.reduce_sum(tf.nn.relu(tf.matmul(x, tf.ones([8, 8], tf.float64) * (i + 1)))) for i in range(4)]
data = np.ones([4, 8])

with tf.Session() as sess:
    for fetched in [heads[0], heads[0], heads[0], heads[1], heads[0], heads[2], heads[0], heads[3]]:
        sess.run(fetched, feed_dict={x: data})


@tf.function
def doubled(v):
    return v * 2


for n in range(1, 4):
    doubled(tf.ones([n]))
