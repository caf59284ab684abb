"""Lab 3 checks: count Const bytes, find the 2 GiB batch limit, strip tensor contents."""

import numpy as np
import tensorflow as tf

from tfgraphs.graphdef import consts
from tfgraphs.spec import network
from tfgraphs.labs.marks import hint, judged_by


def _sample_graph_def():
    """Consts stored three ways (tensor_content, a repeated value, a scalar), and one inside a function body."""
    @tf.function
    def scale(v):
        return v * tf.constant(np.linspace(0.0, 1.0, 500), tf.float64)   # 4,000 bytes in the function's body

    with tf.Graph().as_default() as g:
        tf.constant(np.arange(1000, dtype=np.float32), name="content")
        tf.constant(7.0, shape=[64, 64], dtype=tf.float64, name="splat")
        tf.constant(3, name="scalar")
        tf.compat.v1.placeholder(tf.float32, [None, 4], name="input")
        scale.get_concrete_function(tf.TensorSpec([500], tf.float64)).add_to_graph(g)
    return g.as_graph_def()


def _const_bytes(facts):
    want, got = consts.const_bytes(_sample_graph_def()), facts["got"]
    return got == want, f"got {got:,}, expected {want:,}" if got != want else f"{got:,} bytes", ""


@hint("Your total is not the expanded bytes of the sample's Consts (one in tensor_content, one written as a single "
      "repeated value, a scalar, one in a function body): step 3 names the two easy to miss, and `tfgraphs inspect` "
      "lists each Const's bytes.")
@judged_by(_const_bytes)
def const_bytes_match(mod):
    """const_bytes(graph_def) counts every Const's expanded bytes"""
    return {"got": mod.const_bytes(_sample_graph_def())}


def _max_batch(facts):
    wrong = []
    for dtype in network.DTYPES:
        n = facts["batches"][dtype]
        per = network.example_bytes(dtype)
        if n * per >= 2**31:
            wrong.append(f"{dtype}: {n:,} (TensorFlow refuses that batch itself)")
        elif (n + 1) * per < 2**31:
            # Asking TensorFlow here would copy a tensor of nearly 2 GiB: the arithmetic already says it fits.
            wrong.append(f"{dtype}: {n:,} (batch {n + 1:,} is still under 2 GiB)")
        elif not _refused(n + 1, dtype):
            wrong.append(f"{dtype}: {n:,} (TensorFlow accepted batch {n + 1:,})")
    return not wrong, "wrong: " + ", ".join(wrong) if wrong else "float64, float32, float16", ""


@hint("Read the size check tf.constant makes, in make_tensor_proto (tensorflow/python/framework/tensor_util.py): "
      "the seen line says, for each dtype, whether your batch is past that boundary or short of it.")
@judged_by(_max_batch)
def max_batch_matches_tensorflow(mod):
    """max_embedded_batch(dtype) is the last batch TensorFlow accepts"""
    return {"batches": {dtype: mod.max_embedded_batch(dtype) for dtype in network.DTYPES}}


def _refused(batch, dtype):
    """True when TensorFlow refuses X of this batch at creation (asked on a view that costs no memory)."""
    x = np.broadcast_to(np.zeros((), dtype), (batch, network.HEIGHT, network.WIDTH, network.CHANNELS))
    try:
        with tf.Graph().as_default():
            tf.constant(x)
    except ValueError:
        return True
    return False


KEPT_FIELDS = {"dtype", "tensor_shape", "version_number"}


def _stripped(facts):
    if facts["modified"]:
        return False, "the input GraphDef was modified", "Work on a copy."
    gd, stripped = _sample_graph_def(), tf.compat.v1.GraphDef.FromString(facts["stripped"])
    left = [n.name for n, _ in consts.const_nodes(stripped)
            if {f.name for f, _ in n.attr["value"].tensor.ListFields()} - KEPT_FIELDS]
    kept = all(a.attr["value"].tensor.tensor_shape == b.attr["value"].tensor.tensor_shape
               and a.attr["value"].tensor.dtype == b.attr["value"].tensor.dtype
               for a, b in zip(gd.node, stripped.node) if a.op == "Const")
    ok = not left and kept and len(stripped.node) == len(gd.node)
    detail = f"data left in {left}" if left else ("shapes or dtypes changed" if not kept else f"{stripped.ByteSize():,} bytes")
    return ok, detail, ""


@hint("Compare your output with the copy `tfgraphs inspect --strip-constants` writes (step 5): every Const, in "
      "function bodies too, keeps its dtype and tensor_shape and holds no values.")
@judged_by(_stripped)
def strip_keeps_shapes(mod):
    """strip_constants(graph_def) removes every tensor's data and keeps dtype and shape"""
    gd = _sample_graph_def()
    before = gd.SerializeToString()
    stripped = mod.strip_constants(gd)
    return {"modified": gd.SerializeToString() != before, "stripped": stripped.SerializeToString()}


CHECKS = (const_bytes_match, max_batch_matches_tensorflow, strip_keeps_shapes)
