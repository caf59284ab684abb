"""Lab 4 checks: blocked_conv1d equals tf.nn.conv1d and the convolution only ever sees one shape."""

import numpy as np
import tensorflow as tf

from tfgraphs.labs.checking import hint

LENGTHS = (7, 40, 64, 101, 250)
KERNEL, CHANNELS, FILTERS, BLOCK = 7, 3, 4, 32


def _run(mod, lengths, seen=None):
    """Call the student's function on each length, recording every shape tf.nn.conv1d receives."""
    rng = np.random.default_rng(0)
    filters = tf.constant(rng.standard_normal((KERNEL, CHANNELS, FILTERS)), tf.float32)
    original = tf.nn.conv1d

    def spy(x, *args, **kwargs):
        if seen is not None:
            seen.add(tuple(x.shape))
        return original(x, *args, **kwargs)

    tf.nn.conv1d = spy
    try:
        worst = 0.0
        for length in lengths:
            x = tf.constant(rng.standard_normal((2, length, CHANNELS)), tf.float32)
            want = original(x, filters, stride=1, padding="VALID").numpy()
            got = np.asarray(mod.blocked_conv1d(x, filters, BLOCK))
            if got.shape != want.shape:
                return None, f"length {length}: shape {got.shape}, expected {want.shape}"
            worst = max(worst, float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-12)))
    finally:
        tf.nn.conv1d = original
    return worst, None


@hint("Overlap-save: block i covers input [i*B, i*B + B + K - 1); pad the end with zeros, keep only the first "
      "L - K + 1 outputs.")
def matches_conv1d(mod):
    """blocked_conv1d(x, filters, block_len) equals tf.nn.conv1d(..., padding='VALID')"""
    worst, problem = _run(mod, LENGTHS)
    if problem:
        return False, problem, ""
    return worst <= 1e-5, f"largest relative error {worst:.1e} over lengths {LENGTHS}", ""


@hint("Stack the blocks into a batch of a fixed number of blocks (pad with zero blocks), so neither the block "
      "length nor the batch dimension changes with the input length; call tf.nn.conv1d on that stack.")
def one_shape_only(mod):
    """tf.nn.conv1d sees a single input shape whatever the length"""
    seen = set()
    _, problem = _run(mod, LENGTHS, seen)
    if problem:
        return False, problem, ""
    return len(seen) == 1, f"tf.nn.conv1d saw {len(seen)} shape(s): {sorted(seen)}", ""


CHECKS = (matches_conv1d, one_shape_only)
