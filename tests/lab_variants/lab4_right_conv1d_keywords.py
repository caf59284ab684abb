"""Right, written differently: the reference with tf.nn.conv1d called by keyword arguments."""

import tensorflow as tf

BLOCKS_PER_CALL = 4


def blocked_conv1d(x, filters, block_len):
    x = tf.convert_to_tensor(x)
    batch, length, channels = x.shape
    kernel = filters.shape[0]
    out_len = length - kernel + 1
    n_blocks = -(-out_len // block_len)
    n_calls = -(-n_blocks // BLOCKS_PER_CALL)
    padded_len = n_calls * BLOCKS_PER_CALL * block_len + kernel - 1
    x = tf.pad(x, [[0, 0], [0, padded_len - length], [0, 0]])
    outputs = []
    for call in range(n_calls):
        blocks = [x[:, (call * BLOCKS_PER_CALL + i) * block_len:(call * BLOCKS_PER_CALL + i) * block_len
                    + block_len + kernel - 1] for i in range(BLOCKS_PER_CALL)]
        y = tf.nn.conv1d(input=tf.concat(blocks, axis=0), filters=filters, stride=1, padding="VALID")
        outputs.extend(tf.split(y, BLOCKS_PER_CALL, axis=0))
    return tf.concat(outputs, axis=1)[:, :out_len]
