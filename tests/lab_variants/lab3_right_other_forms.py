"""Right, written differently: make_ndarray for sizes, a search for the boundary, a deep copy."""

import copy
import math

import numpy as np
import tensorflow as tf


def _all_nodes(graph_def):
    yield from graph_def.node
    for fn in graph_def.library.function:
        yield from fn.node_def


def const_bytes(graph_def):
    return sum(tf.make_ndarray(n.attr["value"].tensor).nbytes for n in _all_nodes(graph_def) if n.op == "Const")


def max_embedded_batch(dtype):
    per = 32 * 32 * np.dtype(dtype).itemsize
    return math.floor((2**31 - 1) / per)


def strip_constants(graph_def):
    out = copy.deepcopy(graph_def)
    for n in _all_nodes(out):
        if n.op == "Const":
            t = n.attr["value"].tensor
            dtype, shape = t.dtype, copy.deepcopy(t.tensor_shape)
            t.Clear()
            t.dtype = dtype
            t.tensor_shape.CopyFrom(shape)
    return out
