"""Lab 3 reference solution."""

import math

import numpy as np
import tensorflow as tf

KEEP = {"dtype", "tensor_shape", "version_number"}


def const_bytes(graph_def):
    total = 0
    nodes = list(graph_def.node) + [n for fn in graph_def.library.function for n in fn.node_def]
    for node in nodes:
        if node.op == "Const":
            t = node.attr["value"].tensor
            total += math.prod(d.size for d in t.tensor_shape.dim) * tf.dtypes.as_dtype(t.dtype).size
    return total


def max_embedded_batch(dtype):
    return (2**31 - 1) // (32 * 32 * 1 * np.dtype(dtype).itemsize)


def strip_constants(graph_def):
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for node in list(out.node) + [n for fn in out.library.function for n in fn.node_def]:
        if node.op == "Const":
            t = node.attr["value"].tensor
            for field, _ in t.ListFields():
                if field.name not in KEEP:
                    t.ClearField(field.name)
    return out
