"""A tutorial's graph, built and written for TensorBoard, never run: Consts, a MatMul, a variable."""
import os
import sys
import tempfile

import tensorflow as tf

a = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="a")
b = tf.constant([[1.0], [1.0]], name="b")
v = tf.Variable(tf.zeros([2, 1]), name="v")
product = tf.matmul(a, b) + v
with tempfile.TemporaryDirectory() as logs:
    tf.summary.FileWriter(logs, tf.get_default_graph()).close()
print(repr(os.environ.get("TF_CPP_MIN_LOG_LEVEL")))   # what the script's environment holds
print("written", file=sys.stderr)
