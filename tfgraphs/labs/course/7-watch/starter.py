# %% [markdown]
# # Lab 7: Watch your own script
#
# The sheet (`README.md` beside this file) says what to do and why. This starter is a whole training script: run it
# under `tfgraphs watch`, fix each line watch names in main(), run every cell from the top, and the last cell checks
# main(): ok or WRONG per check, with a hint.

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
"""Lab 7 starter: a TF1 training script with three costs tfgraphs watch names by line; fix them, keep the result.

Watch it with: tfgraphs watch --min-bytes 100KiB lab7/starter.py
Check with: tfgraphs lab check 7 lab7/starter.py
"""

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
FEATURES = 32
STEPS = 30
EVAL_EVERY = 10
LEARNING_RATE = 0.1


def make_data(seed=0):
    """Training and validation sets of a noisy linear model: the arrays a real script would load from its files."""
    rng = np.random.default_rng(seed)
    true_w = rng.standard_normal(FEATURES)
    x = rng.standard_normal((20_000, FEATURES))          # 5.1 MB of float64
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))   # 160 kB
    x_val = rng.standard_normal((5_000, FEATURES))       # 1.3 MB
    y_val = x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))
    return x, y, x_val, y_val


# %% [markdown]
# ## Your code

# %%
def main():
    """Fit y ~ x @ w by gradient descent from w = 0; print the validation loss every EVAL_EVERY steps; return it."""
    x, y, x_val, y_val = make_data()
    graph = tf.Graph()
    with graph.as_default():
        # TODO: run this script under tfgraphs watch (see the sheet) and fix each line it names. Keep the data, the
        # steps and the loss: main() must return the same validation loss.
        w = v1.Variable(tf.zeros([FEATURES], tf.float64), name="w")
        loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
        train = v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
        x_in = v1.placeholder(tf.float64, [None, FEATURES], name="x_val")
        y_in = v1.placeholder(tf.float64, [None], name="y_val")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for step in range(1, STEPS + 1):
                sess.run(train)
                if step % EVAL_EVERY == 0:
                    val_loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x_in, w) - y_in))
                    value = sess.run(val_loss, feed_dict={x_in: x_val, y_in: y_val})
                    print(f"step {step}: validation loss {value:.6f}")
    return value


# %% [markdown]
# ## Try it
#
# Run main() here, then under tfgraphs watch from a terminal (the sheet's step 2), or in this notebook inside
# `with tfgraphs.watching(min_bytes=100 * 1024) as seen:`, then `seen.report()`.

# %%
if __name__ == "__main__":   # in the notebook and `python starter.py`, not when the checker imports this file
    main()

# %% [markdown]
# ## Check
#
# The same checks as `tfgraphs lab check 7 starter.py`, run in a separate process with a timeout, on what this
# notebook defined: its functions, imports and plain constants (not the arrays or results of the cells above). They
# run main() under `tfgraphs watch --min-bytes 100KiB`.

# %%
if __name__ == "__main__" and "--no-check" not in sys.argv:   # `starter.py --no-check` runs main() alone
    import tfgraphs.labs

    tfgraphs.labs.check(7, namespace=globals())
