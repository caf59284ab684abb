# %% [markdown]
# # Lab 5: Warm before serving
#
# The sheet (`README.md` beside this file) says what to do and why. Write the functions marked TODO, run every cell
# from the top, and the last cell checks your functions: ok or WRONG per check, with a hint.

# %% tags=["install"]
# In Colab or a fresh environment this installs tfgraphs; where it is installed already (from PyPI or from a
# checkout with `pip install -e .`), pip leaves it as it is. To install from a checkout or a wheel you uploaded
# instead, give pip its path: %pip install -q path/to/tfgraphs
# %pip install -q tfgraphs

# %%
"""Lab 5 starter: warm a session's executors before serving, so that the first real request is fast.

Check with: tfgraphs lab check 5 lab5/starter.py
"""

import time

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1


def build_model(w):
    """The served model (given): (graph, the [None, 32, 32, 1] input placeholder, the dict of fetches served)."""
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float64, [None, 32, 32, 1], name="X")
        conv = tf.nn.conv2d(x, tf.constant(w, name="W"), strides=[1, 1, 1, 1], padding="VALID", name="conv")
        pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool")
        scores = tf.nn.relu(pool, name="scores")
        features = tf.reduce_mean(scores, axis=[1, 2], name="features")
    return graph, x, {"scores": scores, "features": features}


def serve(sess, x, fetches, batch):
    """One request (given): the scores and features of a batch of images."""
    return sess.run(fetches, feed_dict={x: batch})


# %% [markdown]
# ## Your code

# %%
def warm_up(sess, x, fetches):
    """Before the first request, run once every executor that serve() will need, on a dummy batch."""
    # TODO: which fetches and feeds must the warm-up run use, so that serve() finds its executor built?
    raise NotImplementedError


def first_request_seconds(w, batch, warm):
    """The time of the first serve() in a fresh session, warmed with warm_up() first when warm is True."""
    # TODO: build the model, open a tf.compat.v1.Session on its graph, warm it if asked, then time one serve()
    # alone with time.perf_counter().
    raise NotImplementedError


# %% [markdown]
# ## Try it
#
# The first request of a fresh session, cold and after warm_up(), on a batch of 200 images. Try 2000.

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    rng = np.random.default_rng(0)
    w, batch = rng.random((3, 3, 1, 6)), rng.random((200, 32, 32, 1))
    try:
        cold = first_request_seconds(w, batch, warm=False)
        warmed = first_request_seconds(w, batch, warm=True)
        print(f"first request: {cold * 1e3:.1f} ms cold, {warmed * 1e3:.1f} ms after warm_up")
    except NotImplementedError:
        print("warm_up or first_request_seconds: not written yet")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 5 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(5, namespace=globals())
