"""Lab 4 checks: blocked_conv1d equals a VALID 1-D convolution and the convolution only ever sees one shape."""

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_callbacks   # sees every op TensorFlow runs or builds, whatever the API

from tfgraphs.labs.marks import hint, judged_by

LENGTHS = (7, 40, 64, 101, 250, 3000, 5000)   # long inputs too: a fixed maximum length must not do
BATCHES = (1, 2, 3)
KERNEL, CHANNELS, FILTERS, BLOCK = 7, 3, 4, 32


def _is_convolution(op_type):
    if isinstance(op_type, bytes):   # eager ops report their type as bytes
        op_type = op_type.decode()
    return op_type.startswith(("Conv", "DepthwiseConv")) and "Backprop" not in op_type


def reference(x, filters):
    """VALID, stride-1 1-D convolution (cross-correlation, as TensorFlow computes it) in NumPy."""
    windows = np.lib.stride_tricks.sliding_window_view(x, filters.shape[0], axis=1)   # [b, out, c, k]
    return np.einsum("botk,ktf->bof", windows.astype(np.float64), filters.astype(np.float64))


def _inputs():
    """(filters, [(batch, length, x), ...]): the same draws, in the same order, wherever they are made."""
    rng = np.random.default_rng(0)
    filters = rng.standard_normal((KERNEL, CHANNELS, FILTERS)).astype(np.float32)
    return filters, [(b, n, rng.standard_normal((b, n, CHANNELS)).astype(np.float32)) for b in BATCHES for n in LENGTHS]


def _run(mod):
    """Facts: every output blocked_conv1d gave, in order, and {batch: convolution input shapes seen}."""
    filters, cases = _inputs()
    seen, outputs = {}, []
    batch = [None]

    def watch(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if _is_convolution(op_type):
            seen.setdefault(batch[0], set()).add(tuple(inputs[0].shape))
        return None

    op_callbacks.add_op_callback(watch)
    try:
        for batch[0], length, x in cases:
            outputs.append(np.asarray(mod.blocked_conv1d(tf.constant(x), tf.constant(filters), BLOCK)))
            if outputs[-1].shape != reference(x, filters).shape:
                break
    finally:
        op_callbacks.remove_op_callback(watch)
    return {"outputs": outputs, "seen": seen}


def _compared(facts):
    """(largest relative error or None, problem or None), each output against the NumPy reference of its input."""
    filters, cases = _inputs()
    worst = 0.0
    for (batch, length, x), got in zip(cases, facts["outputs"]):
        want = reference(x, filters)
        if got.shape != want.shape:
            return None, f"batch {batch}, length {length}: shape {got.shape}, expected {want.shape}"
        worst = max(worst, float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-12)))
    return worst, None


def _matches(facts):
    worst, problem = _compared(facts)
    if problem:
        return False, problem, ""
    return worst <= 1e-4, f"largest relative error {worst:.1e} over lengths {LENGTHS} at batches {BATCHES}", ""


@hint("Compare your output with a VALID tf.nn.conv1d of the same input, at the lengths and batches the seen line "
      "names: step 3 says where each block starts, how many samples it holds and which outputs to keep.")
@judged_by(_matches)
def matches_conv1d(mod):
    """blocked_conv1d(x, filters, block_len) equals tf.nn.conv1d(..., padding='VALID')"""
    return _run(mod)


def _one_shape(facts):
    _, problem = _compared(facts)
    seen = facts["seen"]
    if problem:
        return False, problem, "Make the output right first: the check that it equals a VALID conv1d says what differs."
    if not seen:
        return False, "no convolution op ran", ("The checker sees only TensorFlow's convolution ops, and "
                                                "blocked_conv1d ran none: step 3 lists the calls it watches.")
    many = {b: sorted(s, key=str) for b, s in seen.items() if len(s) != 1}
    if many:
        b, shapes = next(iter(many.items()))
        return False, f"at batch {b} the convolution saw {len(shapes)} shapes: {shapes[:4]}", ""
    span = BLOCK + KERNEL - 1
    # conv1d runs as Conv2D on [n, 1, samples, channels]; the samples axis is the one before the channels.
    wrong = {b: s for b, (s,) in seen.items() if s[-2] != span}
    if wrong:
        b, shape = next(iter(wrong.items()))
        return False, f"at batch {b} the convolution saw {shape}: {shape[-2]} samples, not blocks of {span}", ""
    return True, "; ".join(f"batch {b}: {next(iter(s))}" for b, s in sorted(seen.items())), ""


@hint("The seen line gives the convolution's input shapes: at one batch size every call must see the same shape, "
      "made of blocks as step 3 describes; `tfgraphs shapes` times a first and a second pass over new shapes.")
@judged_by(_one_shape)
def one_shape_only(mod):
    """every convolution op sees one input shape per batch size, of block_len + kernel - 1 samples"""
    return _run(mod)


CHECKS = (matches_conv1d, one_shape_only)
