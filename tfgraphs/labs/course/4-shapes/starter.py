"""Lab 4 starter: a 1-D convolution that only ever runs on one input shape.

Check with: tfgraphs lab check 4 lab4/starter.py
"""

import tensorflow as tf


def blocked_conv1d(x, filters, block_len):
    """Same result as tf.nn.conv1d(x, filters, stride=1, padding='VALID') for x [batch, length, channels]."""
    # TODO: this is correct but calls the convolution with a new shape for every new length. Cut x into
    # overlapping blocks of block_len + kernel - 1 samples, run them in fixed-size stacks, and stitch the outputs.
    return tf.nn.conv1d(x, filters, stride=1, padding="VALID")
