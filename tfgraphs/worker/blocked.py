"""A 1-D convolution computed in blocks of one fixed shape (overlap-save), whatever the input length."""

import tensorflow as tf

# Blocks per convolution call. Fixed, so the batch dimension of the inner call never takes a new value either;
# 8 keeps the padding of the last call small for signals of a few blocks while giving each call some width.
BLOCKS_PER_CALL = 8


def conv_input_shape(kernel, channels, block_len, blocks_per_call=BLOCKS_PER_CALL):
    """The one shape every inner convolution call sees: [blocks_per_call, block_len + kernel - 1, channels]."""
    return (blocks_per_call, block_len + kernel - 1, channels)


def blocked_conv1d(x, filters, block_len, blocks_per_call=BLOCKS_PER_CALL):
    """tf.nn.conv1d(x, filters, stride=1, padding="VALID") for x [N, L, C], L >= kernel, in fixed-shape blocks."""
    if block_len < 1 or blocks_per_call < 1:
        raise ValueError(f"block_len and blocks_per_call must be at least 1, not {block_len} and {blocks_per_call}")
    x = tf.convert_to_tensor(x)
    filters = tf.convert_to_tensor(filters, dtype=x.dtype)
    kernel, channels, out_channels = filters.shape
    assert None not in (kernel, channels, out_channels), "filters need a static shape"
    frame = block_len + kernel - 1
    n, length = tf.shape(x)[0], tf.shape(x)[1]

    # Lay every signal end to end. Output p needs inputs p..p+kernel-1 only, so the outputs that straddle two
    # signals are computed and dropped, and no signal is padded up to a whole block of its own.
    stream = tf.reshape(x, [-1, channels])
    total = n * length
    per_call = blocks_per_call * block_len
    calls = (total + per_call - 1) // per_call
    stream = tf.pad(stream, [[0, calls * per_call + kernel - 1 - total], [0, 0]])
    # Block b holds inputs [b * block_len, b * block_len + frame): its VALID outputs are exactly block_len long.
    blocks = tf.signal.frame(stream, frame, block_len, axis=0)
    chunks = tf.reshape(blocks, [calls, blocks_per_call, frame, channels])
    out = tf.map_fn(lambda chunk: tf.nn.conv1d(chunk, filters, stride=1, padding="VALID"), chunks,
                    fn_output_signature=tf.TensorSpec([blocks_per_call, block_len, out_channels], x.dtype))
    out = tf.reshape(out, [-1, out_channels])[:total]
    return tf.reshape(out, [n, length, out_channels])[:, :length - kernel + 1]
