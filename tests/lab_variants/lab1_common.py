"""The network every lab 1 variant builds on (imported by the variant files)."""

import tensorflow as tf


def network(x, w, padding="VALID", pool=tf.nn.avg_pool2d):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding=padding)
    return tf.nn.relu(pool(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"))
