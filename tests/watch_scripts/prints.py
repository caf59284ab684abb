"""A TensorFlow 2 script that prints to stdout and stderr, as python runs it and as watch does."""
import sys

import tensorflow as tf

doubled = tf.function(lambda v: v * 2)
for n in range(1, 4):
    print(n, float(tf.reduce_sum(doubled(tf.ones([n])))))
print("to stderr", file=sys.stderr)
print("done")
