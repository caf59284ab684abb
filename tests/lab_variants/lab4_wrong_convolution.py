"""Wrong: tf.nn.convolution on the whole input, one new shape per length."""

import tensorflow as tf


def blocked_conv1d(x, filters, block_len):
    return tf.nn.convolution(x, filters, padding="VALID")
