"""A loop that calls a builder from another module on every step, and runs what it built."""
import numpy as np
import tensorflow as tf

from mymodel import build

x = tf.placeholder(tf.float64, [None, 4])
with tf.Session() as sess:
    for step in range(4):
        out = build(x)   # new ops every step
        sess.run(out, feed_dict={x: np.ones([2, 4])})
print("done")
