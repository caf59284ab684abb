"""Lab 6 checks: train() fits like NumPy's gradient descent, in one graph that never grows, finalized before it runs."""

import numpy as np

from tfgraphs.labs import rerun
from tfgraphs.labs.marks import hint, judged_by
from tfgraphs.labs.sessions import recording

LEARNING_RATE = 0.1   # as in the starter


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 3))
    return x, x @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(40)


def reference_losses(x, y, steps):
    """The loss before each step of gradient descent on mean squared error from w = 0, in NumPy."""
    w, losses = np.zeros(x.shape[1]), []
    for _ in range(steps):
        residual = x @ w - y
        losses.append(float(np.mean(residual ** 2)))
        w = w - LEARNING_RATE * 2 * x.T @ residual / len(y)
    return losses


def _numpy(facts):
    x, y = _data()
    losses, want = facts["losses"], reference_losses(x, y, 6)
    if len(losses) != len(want):
        return False, f"{len(losses)} losses for 6 steps", ""
    # Relative: TensorFlow's reductions add in another order than NumPy's.
    err = max(abs(a - b) / abs(b) for a, b in zip(losses, want))
    return err < 1e-6, f"largest relative difference from NumPy {err:.1e} over 6 steps", ""


@hint("Keep the loss and the update the same: only where they are created should change.")
@judged_by(_numpy)
def matches_numpy(mod):
    """train(x, y, steps) returns the same losses as gradient descent in NumPy"""
    x, y = _data()
    losses, _ = mod.train(x, y, 6)
    return {"losses": [float(v) for v in losses]}


def _no_growth(facts):
    sizes = {steps: len(rerun.graph_def(data).node) for steps, data in facts["graphs"].items()}
    return sizes[2] == sizes[8], f"{sizes[2]} ops after 2 steps, {sizes[8]} after 8", ""


@hint("The graph has more ops after 8 training steps than after 2: count its operations inside the loop, as the "
      "sheet's step 4 does, to find the lines that add them.")
@judged_by(_no_growth)
def graph_does_not_grow(mod):
    """the graph has as many ops after 8 steps as after 2"""
    x, y = _data()
    return {"graphs": {steps: rerun.serialized(mod.train(x, y, steps)[1]) for steps in (2, 8)}}


def _one_each(facts):
    ok = facts["sessions"] == 1 and facts["same"]
    return ok, f"{facts['sessions']} sessions on {facts['graphs']} graphs for 4 steps", ""


@hint("The seen line counts the sessions and graphs your steps ran in: step 5 asks for one of each for every "
      "step.")
@judged_by(_one_each)
def one_graph_one_session(mod):
    """every step runs in the same session and graph"""
    x, y = _data()
    with recording() as created:
        _, graph = mod.train(x, y, 4)
    return {"sessions": len(created), "graphs": len({id(s.graph) for s in created}),
            "same": len(created) == 1 and created[0].graph is graph}


def _finalized(facts):
    runs, finalized = facts["runs"], facts["finalized"]
    # The first run may be the initializer, made before or after finalize(); every step after it must be guarded.
    late = sum(not f for f in runs[1:])
    ok = finalized and bool(runs) and late == 0
    return ok, f"{len(runs)} runs, {late} after the first on a graph not yet finalized; finalized at the end: " \
               f"{finalized}", ""


@hint("The seen line counts the training runs made on a graph not yet finalized: step 6 says when to finalize "
      "it.")
@judged_by(_finalized)
def finalized_before_training(mod):
    """the graph is finalized before the training steps run"""
    x, y = _data()
    with recording() as created:
        _, graph = mod.train(x, y, 3)
    return {"runs": [finalized for s in created for _, finalized in s.runs], "finalized": bool(graph.finalized)}


CHECKS = (matches_numpy, graph_does_not_grow, one_graph_one_session, finalized_before_training)
