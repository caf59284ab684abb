"""Right, written differently: keyword arguments, tf.nn.convolution, every block of a call in one fixed stack."""

import tensorflow as tf

STACK = 8


def blocked_conv1d(x, filters, block_len):
    x = tf.convert_to_tensor(x)
    length = x.shape[1]
    kernel = filters.shape[0]
    out_len = length - kernel + 1
    n_blocks = -(-out_len // block_len)
    n_stacks = -(-n_blocks // STACK)
    total = n_stacks * STACK * block_len + kernel - 1
    x = tf.pad(x, [[0, 0], [0, total - length], [0, 0]])
    starts = [i * block_len for i in range(n_stacks * STACK)]
    pieces = []
    for s in range(n_stacks):
        stack = tf.stack([x[:, j:j + block_len + kernel - 1] for j in starts[s * STACK:(s + 1) * STACK]], axis=1)
        flat = tf.reshape(stack, [-1, block_len + kernel - 1, x.shape[2]])
        y = tf.nn.convolution(input=flat, filters=filters, padding="VALID")
        pieces.append(tf.reshape(y, [x.shape[0], STACK * block_len, filters.shape[2]]))
    return tf.concat(pieces, axis=1)[:, :out_len]
