"""A builder in a module of its own: each call makes new ops."""
import tensorflow as tf


def build(x):
    return tf.reduce_sum(tf.square(x)) * 3.0
