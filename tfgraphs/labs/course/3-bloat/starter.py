# %% [markdown]
# # Lab 3: Graph bloat
#
# The sheet (`README.md` beside this file) says what to do and why. Write the functions marked TODO, run every cell
# from the top, and the last cell checks your functions: ok or WRONG per check, with a hint.

# %% tags=["install"]
# In Colab or a fresh environment this installs tfgraphs; where it is installed already (from PyPI or from a
# checkout with `pip install -e .`), pip leaves it as it is. To install from a checkout or a wheel you uploaded
# instead, give pip its path: %pip install -q path/to/tfgraphs
# %pip install -q tfgraphs

# %%
"""Lab 3 starter: what is inside a GraphDef, and how big may it get.

Check with: tfgraphs lab check 3 lab3/starter.py
"""

import numpy as np
import tensorflow as tf

# %% [markdown]
# ## Your code

# %%
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


# %% [markdown]
# ## Try it
#
# A graph with three constants: how many bytes do they hold, and how big is the GraphDef that carries them?

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(np.arange(1000, dtype=np.float32), name="content")
        tf.constant(7.0, shape=[64, 64], dtype=tf.float64, name="splat")
        tf.constant(3, name="scalar")
    graph_def = graph.as_graph_def()
    print(f"const_bytes: {const_bytes(graph_def):,}; GraphDef: {graph_def.ByteSize():,} bytes")
    print(f"max_embedded_batch(float64): {max_embedded_batch(np.float64):,}")
    try:
        print(f"stripped GraphDef: {strip_constants(graph_def).ByteSize():,} bytes")
    except NotImplementedError:
        print("strip_constants: not written yet")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 3 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(3, namespace=globals())
