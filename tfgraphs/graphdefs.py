"""Read sizes out of a GraphDef: embedded tensor bytes, node counts (imports TensorFlow)."""

import math

import tensorflow as tf


def tensor_bytes(tensor_proto):
    """Bytes a TensorProto holds once expanded: elements x itemsize."""
    dims = [d.size for d in tensor_proto.tensor_shape.dim]
    dtype = tf.dtypes.as_dtype(tensor_proto.dtype)
    if dtype == tf.string:
        return sum(len(s) for s in tensor_proto.string_val)
    return math.prod(dims) * dtype.size


def const_nodes(graph_def):
    """(node, bytes) for every Const node, including those inside function definitions."""
    nodes = list(graph_def.node)
    for fn in graph_def.library.function:
        nodes.extend(fn.node_def)
    return [(n, tensor_bytes(n.attr["value"].tensor)) for n in nodes if n.op == "Const"]


def const_bytes(graph_def):
    """Total bytes held in Const tensors."""
    return sum(size for _, size in const_nodes(graph_def))
