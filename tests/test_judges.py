"""The tool's own judges, each handed a known-wrong input: a judge that always says "fine" fails here."""

import numpy as np
import pytest

from tfgraphs.spec import network


@pytest.mark.parametrize("dtype", network.DTYPES)
def test_reference_check_catches_an_output_off_by_a_little(dtype):
    x, w = network.make_data(6, dtype, seed=3)
    right = network.reference_forward(x, w).astype(dtype)
    err = network.max_abs_error(x, w, right)
    network.check_close(err, dtype)   # the right answer passes
    tol = network.TOLERANCE[dtype]
    wrong = right.astype(np.float64)
    wrong[4, 7, 2, 5] += 3 * tol       # one value of one example, a little past the tolerance
    bad = network.max_abs_error(x, w, right, wrong.astype(dtype) if dtype == "float64" else wrong)
    assert bad > tol
    with pytest.raises(ValueError, match="differs from the NumPy reference"):
        network.check_close(bad, dtype)
    with pytest.raises(ValueError):
        network.check_close(float("nan"), dtype)


def test_const_bytes_counts_a_known_graph_including_a_function_body():
    tf = pytest.importorskip("tensorflow")
    from tfgraphs.graphdef import consts

    @tf.function
    def inner(v):
        return v + tf.constant(np.ones(300, np.float32))   # 1,200 bytes inside the function body

    g = tf.Graph()
    with g.as_default():
        tf.constant(np.zeros((10, 10), np.float64), name="a")          # 800 bytes
        tf.constant(5.0, shape=[20, 5], dtype=tf.float32, name="b")    # 400 bytes, stored as one value
        inner.get_concrete_function(tf.TensorSpec([300], tf.float32)).add_to_graph(g)
    graph_def = g.as_graph_def()
    in_body = [n for fn in graph_def.library.function for n in fn.node_def if n.op == "Const"]
    assert in_body, "the function body should hold a Const"
    assert consts.const_bytes(graph_def) == 800 + 400 + 1200
    # A counter that skipped function bodies would say 1,200 bytes; one that skipped splats 2,000.
    top_only = sum(consts.tensor_bytes(n.attr["value"].tensor) for n in graph_def.node if n.op == "Const")
    assert top_only == 1200 and consts.const_bytes(graph_def) != top_only
