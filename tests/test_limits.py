"""The two 2 GiB limits: arithmetic checked one batch past each, and TensorFlow's own refusal at creation."""

import numpy as np
import pytest

from tfgraphs.spec import network


@pytest.mark.parametrize("dtype", network.DTYPES)
def test_tensor_limit_is_the_last_batch_under_2_gib(dtype):
    n = network.max_tensor_batch(dtype)
    per = network.example_bytes(dtype)
    assert n * per < network.TENSOR_LIMIT <= (n + 1) * per


@pytest.mark.parametrize("copies", [1, 2])
def test_graphdef_limit_counts_every_copy_and_the_overhead(copies):
    per = network.example_bytes("float64")
    n = network.max_graphdef_batch("float64", copies, overhead_bytes=1000)
    assert copies * per * n + 1000 < network.GRAPHDEF_LIMIT <= copies * per * (n + 1) + 1000


def test_one_batch_past_each_limit_is_refused_and_named():
    tensor = network.max_tensor_batch("float64")
    assert network.limit_refusal("constant", tensor, "float64") is None
    past = network.limit_refusal("constant", tensor + 1, "float64")
    assert past.startswith("constant: X would be one tensor") and "single-tensor limit" in past
    assert f"largest float64 batch it accepts is {tensor:,}" in past
    # dataset-embedded holds X twice: the serialized GraphDef passes 2 GiB at half the tensor's batch.
    graph = network.max_graphdef_batch("float64", copies=2)
    assert graph < tensor
    assert network.limit_refusal("dataset-embedded", graph, "float64") is None
    between = network.limit_refusal("dataset-embedded", graph + 1, "float64")
    assert "serialized-GraphDef limit" in between and "single-tensor" in between
    assert f"largest float64 batch that fits is {graph:,}" in between and f"up to {tensor:,}" in between
    assert "single-tensor limit" in network.limit_refusal("dataset-embedded", tensor + 1, "float64")
    assert network.limit_refusal("placeholder", 10 * tensor, "float64") is None


def test_a_wrong_limit_is_caught_by_tensorflow():
    """One past the computed batch, TensorFlow refuses the tensor at creation; a limit one too high would pass it."""
    tf = pytest.importorskip("tensorflow")
    n = network.max_tensor_batch("float16")
    # A zero-stride view: TensorFlow checks its bytes before copying anything.
    x = np.broadcast_to(np.zeros((), "float16"), (n + 1, network.HEIGHT, network.WIDTH, network.CHANNELS))
    with tf.Graph().as_default(), pytest.raises(ValueError, match="2GB"):
        tf.constant(x)
    assert not network.embedded_fits(n + 1, "float16") and network.embedded_fits(n, "float16")
