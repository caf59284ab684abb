"""The NumPy reference against a direct loop, and every TF variant against the reference."""

import numpy as np
import pytest

from tfgraphs.spec import network
from tfgraphs.spec.network import VARIANTS


def loop_forward(x, w):
    """The seed network written as plain loops: the reference's own reference."""
    n, h, wd, c = x.shape
    k, _, _, o = w.shape
    conv = np.zeros((n, h - k + 1, wd - k + 1, o))
    for b in range(n):
        for i in range(h - k + 1):
            for j in range(wd - k + 1):
                conv[b, i, j] = np.tensordot(x[b, i:i + k, j:j + k, :], w, axes=3)
    ph, pw = conv.shape[1] // 2, conv.shape[2] // 2
    pooled = np.zeros((n, ph, pw, o))
    for i in range(ph):
        for j in range(pw):
            pooled[:, i, j] = conv[:, 2 * i:2 * i + 2, 2 * j:2 * j + 2].mean(axis=(1, 2))
    return np.maximum(pooled, 0)


def test_reference_matches_loops():
    x, w = network.make_data(2, "float64", seed=3)
    w = w - 0.5  # negative weights so that relu clips something
    ref = network.reference_forward(x, w)
    assert ref.shape == network.output_shape(2) == (2, 15, 15, 6)
    np.testing.assert_allclose(ref, loop_forward(x, w), rtol=0, atol=1e-12)
    assert (ref == 0).any()


def test_sizes():
    assert network.example_bytes("float64") == 8192
    assert network.data_bytes(60000, "float64") == 491_520_000
    assert network.data_bytes(10, "float16") == 20480


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("dtype", network.DTYPES)
def test_variant_matches_reference(variant, dtype):
    import tensorflow as tf
    from tfgraphs.worker import graphs

    x, w = network.make_data(7, dtype, seed=1)
    built = graphs.build(variant, x, w)
    with tf.compat.v1.Session(graph=built.graph) as sess:
        if built.init is not None:
            sess.run(built.init, feed_dict=built.init_feed)
        y = sess.run(built.output, feed_dict=built.feed)
    assert y.shape == network.output_shape(7)
    assert y.dtype == np.dtype(dtype)
    assert network.max_abs_error(x, w, y) <= network.TOLERANCE[dtype]
