# %% [markdown]
# # Lab 6: A graph that grows
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
"""Lab 6 starter: find and fix a leaky training loop, then guard it with graph.finalize().

Check with: tfgraphs lab check 6 lab6/starter.py
"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
LEARNING_RATE = 0.1

# %% [markdown]
# ## Your code

# %%
def train(x, y, steps):
    """Fit y ~ x @ w by gradient descent from w = 0; return (the loss before each step, the graph it ran in)."""
    graph = tf.Graph()
    with graph.as_default():
        xs = v1.placeholder(tf.float64, [None, x.shape[1]], name="x")
        ys = v1.placeholder(tf.float64, [None], name="y")
        w = v1.Variable(tf.zeros([x.shape[1]], tf.float64), name="w")
        sess = v1.Session(graph=graph)
        sess.run(v1.global_variables_initializer())
        losses = []
        # TODO: this loop works, but it gets slower with every step: the sheet's steps 4 to 6 say how to find
        # out why, fix it and guard it.
        for _ in range(steps):
            loss = tf.reduce_mean(tf.square(tf.linalg.matvec(xs, w) - ys))
            step = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
            loss_value, _ = sess.run([loss, step], feed_dict={xs: x, ys: y})
            losses.append(float(loss_value))
        sess.close()
    return losses, graph


# %% [markdown]
# ## Try it
#
# Train for 20 steps: how many ops does the graph have afterwards? Try 40 steps.

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 5))
    y = x @ np.arange(1.0, 6.0)
    losses, graph = train(x, y, 20)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3g} in {len(losses)} steps; the graph has "
          f"{len(graph.get_operations())} ops; finalized: {graph.finalized}")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 6 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(6, namespace=globals())
