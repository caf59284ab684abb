"""Wrong: only tensor_content counted and cleared, in place; "2 GiB or less" read as accepted."""

import numpy as np


def _all_nodes(graph_def):
    yield from graph_def.node
    for fn in graph_def.library.function:
        yield from fn.node_def


def const_bytes(graph_def):
    return sum(len(n.attr["value"].tensor.tensor_content) for n in _all_nodes(graph_def) if n.op == "Const")


def max_embedded_batch(dtype):
    return 2**31 // (32 * 32 * np.dtype(dtype).itemsize)


def strip_constants(graph_def):
    for n in _all_nodes(graph_def):
        if n.op == "Const":
            n.attr["value"].tensor.ClearField("tensor_content")
    return graph_def
