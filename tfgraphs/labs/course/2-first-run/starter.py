# %% [markdown]
# # Lab 2: What the first run pays for
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
"""Lab 2 starter: switch optimizers off, read a trace, measure the first run's excess.

Check with: tfgraphs lab check 2 lab2/starter.py
"""

import statistics

import tensorflow as tf

# %% [markdown]
# ## Your code

# %%
def session_config(grappler=True, constant_folding=True):
    """A tf.compat.v1.ConfigProto: grappler=False turns Grappler off; constant_folding=False turns off both
    Grappler's constant folding and the classic optimizer's (opt_level L0, do_constant_folding False)."""
    config = tf.compat.v1.ConfigProto()
    # TODO: set the fields for each flag. Both True must leave the default config untouched.
    return config


def op_types_that_ran(run_metadata):
    """The set of op types (e.g. {'Conv2D', 'AvgPool', ...}) in a FULL_TRACE run's step stats."""
    # TODO: walk run_metadata.step_stats.
    raise NotImplementedError


def first_run_excess(first_s, later_s):
    """What only the first run pays: the first run's time minus the typical later run."""
    # TODO: step 5 says which later runs the checker gives this function.
    return first_s - statistics.mean(later_s)


# %% [markdown]
# ## Try it
#
# Which op types run when a tiny graph runs traced, with every optimizer on, then with all of them off?

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    graph = tf.Graph()
    with graph.as_default():
        total = tf.reduce_sum(tf.constant([1.0, 2.0]) * 3.0 + tf.compat.v1.placeholder_with_default(1.0, []))
    for flags in [(True, True), (False, False)]:
        with tf.compat.v1.Session(graph=graph, config=session_config(*flags)) as sess:
            metadata = tf.compat.v1.RunMetadata()
            options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
            sess.run(total, options=options, run_metadata=metadata)
        try:
            print(f"grappler, folding = {flags}: {sorted(op_types_that_ran(metadata))}")
        except NotImplementedError:
            print("op_types_that_ran: not written yet")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 2 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(2, namespace=globals())
