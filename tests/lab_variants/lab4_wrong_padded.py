"""Wrong: one call on the input padded to a fixed maximum length, not blocks."""

import tensorflow as tf

MAX_LEN = 8192


def blocked_conv1d(x, filters, block_len):
    length = x.shape[1]
    padded = tf.pad(x, [[0, 0], [0, MAX_LEN - length], [0, 0]])
    y = tf.nn.conv1d(input=padded, filters=filters, stride=1, padding="VALID")
    return y[:, :length - filters.shape[0] + 1]
