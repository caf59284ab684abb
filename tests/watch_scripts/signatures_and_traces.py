"""One call site that keeps changing what it fetches, and a tf.function called with a new shape each time.

Each head is a chain of about 350 small ops, so that building its executors takes tens of milliseconds: a new
signature's first run stands well above a noisy repeat of an old one. Four new sets and five repeats: the fewest a
rank test can tell apart."""
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float64, [None, 8])


def head(scale, depth=50):
    """A chain of small ops: each new fetch set builds an executor for all of them."""
    h = x
    for _ in range(depth):
        h = tf.nn.relu(tf.matmul(h, tf.ones([8, 8], tf.float64) * scale) - 1.0)
    return tf.reduce_sum(h)


heads = [head(i + 1) for i in range(5)]
data = np.ones([4, 8])

with tf.Session() as sess:
    for fetched in [heads[0], heads[0], heads[0], heads[1], heads[0], heads[2], heads[0], heads[3], heads[0], heads[4]]:
        sess.run(fetched, feed_dict={x: data})


@tf.function
def doubled(v):
    return v * 2


for n in range(1, 4):
    doubled(tf.ones([n]))
