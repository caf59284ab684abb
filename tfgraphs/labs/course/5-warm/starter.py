# %% [markdown]
# # Lab 5: Warm before serving
#
# The sheet (`README.md` beside this file) says what to do and why. Write the functions marked TODO, run every cell
# from the top, and the last cell checks your functions: ok or WRONG per check, with a hint.

# %% tags=["install"]
# tfgraphs must be installed in this kernel. In a fresh runtime (Colab) where it is not, this cell installs it from
# TFGRAPHS_SOURCE: the wheel your course hands out, uploaded beside this notebook, or a git URL
# ("git+https://HOST/PATH/tfgraphs.git"). Where tfgraphs is installed already, it does nothing.
import importlib.util
import subprocess
import sys

TFGRAPHS_SOURCE = "tfgraphs-0.3.0-py3-none-any.whl"
if importlib.util.find_spec("tfgraphs") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", TFGRAPHS_SOURCE], check=True)

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
# The first request of a session, cold and after warm_up(), on a batch of 200 images (try 2000). The first session of
# the process also pays the process's own start-up, so it is run once and thrown away. Then cold and warm alternate,
# ROUNDS of each, so that a change of the machine's load falls on both alike, and the judge compares the two lists.

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    from tfgraphs.records.judge import judge

    BATCH, ROUNDS = 200, 8
    rng = np.random.default_rng(0)
    w, batch = rng.random((3, 3, 1, 6)), rng.random((BATCH, 32, 32, 1))
    try:
        first_request_seconds(w, batch, warm=False)   # thrown away: the process's start-up is not the executor's
        cold, warm = [], []
        for _ in range(ROUNDS):
            cold.append(round(first_request_seconds(w, batch, warm=False) * 1e3, 3))
            warm.append(round(first_request_seconds(w, batch, warm=True) * 1e3, 3))
        print(f"COLD_MS = {cold}")
        print(f"WARM_MS = {warm}")
        print(f"first request, cold against warm: {judge(cold, warm).says()}")
    except NotImplementedError:
        print("warm_up or first_request_seconds: not written yet")

# %% [markdown]
# ## Your run
#
# Copy the two lists the Try it printed, and the outcome the judge gave them: "differs", "no difference" or "cannot
# tell". The check judges these samples itself and accepts the outcome it finds, whichever it is.

# %%
COLD_MS = []      # TODO: the Try it's COLD_MS list, in ms
WARM_MS = []      # TODO: the Try it's WARM_MS list, in ms
JUDGE_SAID = ""   # TODO: what the judge said of them: "differs", "no difference" or "cannot tell"


# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 5 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(5, namespace=globals())
