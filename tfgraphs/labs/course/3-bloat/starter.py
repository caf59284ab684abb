"""Lab 3 starter: what is inside a GraphDef, and how big may it get.

Check with: tfgraphs lab check 3 lab3/starter.py
"""

import numpy as np
import tensorflow as tf


def const_bytes(graph_def):
    """Total bytes held by the graph's Const nodes, as they are once expanded in memory."""
    total = 0
    for node in graph_def.node:
        if node.op == "Const":
            # TODO: is tensor_content always where the data is?
            total += len(node.attr["value"].tensor.tensor_content)
    return total


def max_embedded_batch(dtype):
    """The largest N for which tf.constant of an [N, 32, 32, 1] array of this dtype is accepted."""
    # TODO: check the boundary: is "2 GiB or more" refused, or "more than 2 GiB"?
    return 2**31 // (32 * 32 * 1 * np.dtype(dtype).itemsize)


def strip_constants(graph_def):
    """A copy of graph_def with every tensor's data removed, keeping its dtype and shape."""
    # TODO
    raise NotImplementedError
