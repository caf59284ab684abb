"""A Saver, a summary, a Dataset and an initializer made on every pass of a training loop."""
import os
import sys

import numpy as np
import tensorflow as tf

folder = sys.argv[1] if len(sys.argv) > 1 else "."
w = tf.Variable(tf.zeros([4]), name="w")
loss = tf.reduce_sum(tf.square(w - 1.0))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf.Session() as sess:
    for step in range(3):
        sess.run(tf.global_variables_initializer())   # an initializer every pass
        data = tf.data.Dataset.from_tensor_slices(np.ones([4, 4], np.float32))   # a Dataset every pass
        item = tf.data.make_one_shot_iterator(data).get_next()
        merged = tf.summary.scalar("loss", loss)   # a summary every pass
        sess.run([train, item, merged])
        saver = tf.train.Saver()   # a Saver every pass
        saver.save(sess, os.path.join(folder, "model"))
print("done")
