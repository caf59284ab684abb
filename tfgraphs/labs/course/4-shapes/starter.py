# %% [markdown]
# # Lab 4: One shape only
#
# The sheet (`README.md` beside this file) says what to do and why. Write the functions marked TODO, run every cell
# from the top, and the last cell checks your functions: ok or WRONG per check, with a hint.

# %% tags=["install"]
# In Colab or a fresh environment this installs tfgraphs; where it is installed already (from PyPI or from a
# checkout with `pip install -e .`), pip leaves it as it is. To install from a checkout or a wheel you uploaded
# instead, give pip its path: %pip install -q path/to/tfgraphs
# %pip install -q tfgraphs

# %%
"""Lab 4 starter: a 1-D convolution that only ever runs on one input shape.

Check with: tfgraphs lab check 4 lab4/starter.py
"""

import numpy as np
import tensorflow as tf

# %% [markdown]
# ## Your code

# %%
def blocked_conv1d(x, filters, block_len):
    """Same result as tf.nn.conv1d(x, filters, stride=1, padding='VALID') for x [batch, length, channels]."""
    # TODO: this is correct but calls the convolution with a new shape for every new length. Cut x into
    # overlapping blocks of block_len + kernel - 1 samples, run them in fixed-size stacks, and stitch the outputs.
    return tf.nn.conv1d(x, filters, stride=1, padding="VALID")


# %% [markdown]
# ## Try it
#
# Does your function still give tf.nn.conv1d's result on a few lengths?

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    rng = np.random.default_rng(0)
    kernel = rng.random((5, 2, 3))
    for length in (20, 37, 64):
        signal = rng.random((2, length, 2))
        got = np.asarray(blocked_conv1d(tf.constant(signal), tf.constant(kernel), block_len=16))
        want = tf.nn.conv1d(signal, kernel, stride=1, padding="VALID").numpy()
        print(f"length {length}: largest difference from tf.nn.conv1d {np.max(np.abs(got - want)):.3g}")

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 4 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above).

# %%
if __name__ == "__main__":
    import tfgraphs.labs

    tfgraphs.labs.check(4, namespace=globals())
