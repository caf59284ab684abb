# %% [markdown]
# # Lab 1: Feed, don't embed
#
# The sheet (`README.md` beside this file) says what to do and why. Write the functions marked TODO, run every cell
# from the top, and the last cell checks your functions: ok or WRONG per check, with a hint.

# %% tags=["install"]
# In Colab or a fresh environment this installs tfgraphs; where it is installed already (from PyPI or from a
# checkout with `pip install -e .`), pip leaves it as it is. To install from a checkout or a wheel you uploaded
# instead, give pip its path: %pip install -q path/to/tfgraphs
# %pip install -q tfgraphs

# %%
"""Lab 1 starter: feed X instead of embedding it. Check with: tfgraphs lab check 1 lab1/starter.py"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def network(x, w):
    """conv2d 3x3/1 VALID -> avg_pool 2x2/2 VALID -> relu (done for you)."""
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.nn.relu(pool)


# %% [markdown]
# ## Your code

# %%
def build_fed(x, w):
    """Return (graph, output, feed_dict): X must come in through feed_dict, not live in the graph."""
    graph = tf.Graph()
    with graph.as_default():
        # TODO: this embeds X in the GraphDef. Replace tf.constant(x) with a placeholder of shape [None, 32, 32, 1]
        # and return a feed_dict that maps it to x.
        out = network(tf.constant(x), tf.constant(w))
    return graph, out, {}


def build_loaded(x, w):
    """Return (graph, output, init_op, init_feed): X is loaded once into a variable; later runs need no feed."""
    # TODO: a placeholder for X's initial value, a non-trainable variable initialised from it, the network on the
    # variable, and the variable's initializer with a feed_dict for the placeholder.
    raise NotImplementedError


# %% [markdown]
# ## Try it
#
# How many bytes does each graph's GraphDef hold for a batch of 100 images? Try other batches.

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    rng = np.random.default_rng(0)
    images, kernel = rng.random((100, 32, 32, 1)), rng.random((3, 3, 1, 6))
    fed_graph, _, _ = build_fed(images, kernel)
    print(f"build_fed: {fed_graph.as_graph_def().ByteSize():,} GraphDef bytes")
    try:
        loaded_graph = build_loaded(images, kernel)[0]
        print(f"build_loaded: {loaded_graph.as_graph_def().ByteSize():,} GraphDef bytes")
    except NotImplementedError:
        print("build_loaded: not written yet")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 1 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(1, namespace=globals())
