"""Lab 4, wrong: the answer computed by NumPy (through tf.numpy_function), beside one convolution of the right shape
whose result is thrown away."""

import numpy as np
import tensorflow as tf


def _numpy(x, filters):
    windows = np.lib.stride_tricks.sliding_window_view(x, filters.shape[0], axis=1)
    return np.einsum("botk,ktf->bof", windows, filters).astype(np.float32)


def blocked_conv1d(x, filters, block_len):
    out = tf.numpy_function(_numpy, [x, filters], tf.float32)
    dummy = tf.nn.conv1d(tf.zeros([4 * x.shape[0], block_len + filters.shape[0] - 1, x.shape[2]]), filters, 1,
                         "VALID")
    out = tf.ensure_shape(out, [x.shape[0], x.shape[1] - filters.shape[0] + 1, filters.shape[2]])
    return out + 0.0 * tf.reduce_sum(dummy)
