"""Wrong: function bodies skipped everywhere, and 2 GB read as 2e9 bytes."""

import math

import numpy as np
import tensorflow as tf


def const_bytes(graph_def):
    return sum(math.prod(d.size for d in n.attr["value"].tensor.tensor_shape.dim)
               * tf.dtypes.as_dtype(n.attr["value"].tensor.dtype).size for n in graph_def.node if n.op == "Const")


def max_embedded_batch(dtype):
    return int(2e9 // (32 * 32 * np.dtype(dtype).itemsize))


def strip_constants(graph_def):
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    for n in out.node:   # the function library keeps its data
        if n.op == "Const":
            n.attr["value"].tensor.ClearField("tensor_content")
            for f, _ in n.attr["value"].tensor.ListFields():
                if f.name.endswith("_val"):
                    n.attr["value"].tensor.ClearField(f.name)
    return out
