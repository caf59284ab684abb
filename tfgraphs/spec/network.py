"""The seed network's shapes, its data, and a plain NumPy reference of it."""

import numpy as np

HEIGHT, WIDTH, CHANNELS = 32, 32, 1
FILTER, OUT_CHANNELS = 3, 6
POOL = 2
DTYPES = ("float64", "float32", "float16")

# Largest |TF - NumPy| accepted per dtype; outputs are O(1) for data in [0, 1).
TOLERANCE = {"float64": 1e-9, "float32": 1e-4, "float16": 3e-2}


def example_bytes(dtype):
    """Bytes of one input example [32, 32, 1] in this dtype."""
    return HEIGHT * WIDTH * CHANNELS * np.dtype(dtype).itemsize


def data_bytes(batch, dtype):
    """Bytes of the whole input X [batch, 32, 32, 1]."""
    return batch * example_bytes(dtype)


def conv_shape(batch):
    """Shape after conv2d 3x3, stride 1, VALID."""
    return (batch, HEIGHT - FILTER + 1, WIDTH - FILTER + 1, OUT_CHANNELS)


def output_shape(batch):
    """Shape after avg_pool 2x2, stride 2, VALID."""
    _, h, w, c = conv_shape(batch)
    return (batch, h // POOL, w // POOL, c)


def activation_bytes(batch, dtype):
    """Bytes of the conv, pool and relu outputs held during one run."""
    item = np.dtype(dtype).itemsize
    return (np.prod(conv_shape(batch)) + 2 * np.prod(output_shape(batch))) * item


def output_bytes(batch, dtype):
    """Bytes of the network's output (the relu) at this batch."""
    return int(np.prod(output_shape(batch))) * np.dtype(dtype).itemsize


def make_data(batch, dtype, seed):
    """X [batch,32,32,1] and W [3,3,1,6], uniform in [0, 1) as in the seed."""
    rng = np.random.default_rng(seed)
    x = rng.random((batch, HEIGHT, WIDTH, CHANNELS), dtype=np.float64).astype(dtype, copy=False)
    w = rng.random((FILTER, FILTER, CHANNELS, OUT_CHANNELS), dtype=np.float64).astype(dtype, copy=False)
    return x, w


def reference_forward(x, w):
    """conv2d (VALID, stride 1) -> avg_pool 2x2/2 -> relu, in float64 NumPy."""
    x = x.astype(np.float64, copy=False)
    w = w.astype(np.float64, copy=False)
    n = x.shape[0]
    # Every 3x3 window as a view [n, oh, ow, C, kh, kw]; one tensordot with W [kh, kw, C, O] is the convolution.
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[:2], axis=(1, 2))
    conv = np.tensordot(windows, w, axes=([3, 4, 5], [2, 0, 1]))
    oh, ow = conv.shape[1:3]
    ph, pw = oh // POOL, ow // POOL
    pooled = conv[:, :ph * POOL, :pw * POOL, :].reshape(n, ph, POOL, pw, POOL, -1).mean(axis=(2, 4))
    return np.maximum(pooled, 0.0)


def check_close(error, dtype):
    """Raise ValueError when an output's largest |TF - NumPy| is past the dtype's tolerance (or not a number)."""
    tol = TOLERANCE[dtype]
    if not error <= tol:
        raise ValueError(f"output differs from the NumPy reference by {error:.3g} (tolerance {tol:g})")


def max_abs_error(x, w, *outputs, chunk=1000):
    """Largest |y - reference| over the batch and every output y, the reference computed once, in chunks."""
    worst = 0.0
    for start in range(0, x.shape[0], chunk):
        ref = reference_forward(x[start:start + chunk], w)
        for y in outputs:
            worst = max(worst, float(np.max(np.abs(y[start:start + chunk].astype(np.float64) - ref))))
    return worst


def sum_error(x, w, total, chunk=1000):
    """|total - the reference output's sum| per output element, the reference summed in chunks."""
    ref = sum(float(reference_forward(x[start:start + chunk], w).sum()) for start in range(0, x.shape[0], chunk))
    return abs(float(total) - ref) / np.prod(output_shape(x.shape[0]))
