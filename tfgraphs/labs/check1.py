"""Lab 1 checks: build_fed(x, w) keeps X out of the graph; build_loaded(x, w) loads it once into a variable.

Each check's body serializes what the student's function built; the judge imports it and runs it on its own X.
"""

import secrets

import numpy as np
import tensorflow as tf

from tfgraphs.labs import rerun
from tfgraphs.labs.marks import hint, judged_by, on_error, shares
from tfgraphs.spec import network

BATCH = 50
SMALL = 10_000   # bytes: the seed network's nodes without X serialize to about 1 KB
DTYPE_HINT = ("conv2d was given two dtypes: your placeholder's dtype is not the one of the arrays it stands for "
              "(compare it with x.dtype and w.dtype).")
FIXED_BATCH_HINT = ("The placeholder's shape fixes the batch, so another batch cannot be fed: step 3 says which "
                    "dimension to leave open.")


def _data(batch=BATCH, seed=0):
    return network.make_data(batch, "float64", seed)


def _own(batch=BATCH):
    """An X the judge draws now, which the student's process never saw and could not have computed for."""
    return _data(batch, seed=secrets.randbelow(2**31) + 1)[0]


def _feeds_x(facts):
    """True when the student's feed_dict gives some tensor the X build_fed was given."""
    x = _data()[0]
    return any(np.shape(v) == x.shape and np.array_equal(v, x) for v in facts["feed"].values())


NO_X = ("the feed_dict has no entry with X's shape holding x, so the checker cannot feed its own X",
        "Return a feed_dict that maps your placeholder to x itself, the array build_fed was given (step 3).")


def _fed_run(facts, x_own):
    """build_fed's output, its graph imported and run here with x_own fed where the student's feed gives X."""
    x, w = _data()
    graph = rerun.imported(facts["graph"])
    feed = rerun.own_feed(graph, facts["feed"], ((x, x_own), (w, w)))
    with tf.compat.v1.Session(graph=graph) as sess:
        return np.asarray(rerun.run(sess, facts["output"], feed))


def _fed(mod):
    """What build_fed made, as TensorFlow serializes it: its GraphDef, its output's name and its feed_dict."""
    x, w = _data()
    graph, out, feed = mod.build_fed(x, w)
    return {"graph": rerun.serialized(graph), "output": rerun.name_of(graph, out), "feed": rerun.feed_of(graph, feed)}


def _small(facts):
    graph_def = rerun.graph_def(facts["graph"])
    if facts["output"].split(":")[0] not in {n.name for n in graph_def.node}:
        return False, f"the GraphDef sent has no node {facts['output'][:80]!r}, build_fed's output", ""
    size, x_bytes = graph_def.ByteSize(), _data()[0].nbytes
    ok = size < SMALL
    name, held = rerun.largest_const(graph_def) or ("", 0)
    name = name[:80]
    seen = f"the GraphDef is {size:,} bytes for {x_bytes:,} bytes of X" + (
        f"; the Const {name!r} holds {held:,} of them" if not ok and held else "")
    return ok, seen, ("" if ok else f"The Const {name!r} is X, converted into the graph by tf.constant or by passing "
                      "the array to an op: X must enter through a placeholder and the feed_dict instead (step 3).")


@hint("X must enter build_fed's graph through a placeholder and the feed_dict, not as an array (step 3); "
      "`tfgraphs inspect` on a saved GraphDef lists its largest Consts.")
@on_error(("does not match type", DTYPE_HINT))
@judged_by(_small)
@shares("build_fed")
def fed_graph_is_small(mod):
    """X is not in build_fed's GraphDef"""
    return _fed(mod)


def _compared(x, w, *outputs):
    """('output shape S, max abs error E' or 'output shape S, expected T', the error or inf) against the reference."""
    want = network.output_shape(len(x))
    if any(y.shape != want for y in outputs):
        return f"output shape {outputs[0].shape}, expected {want}", float("inf")
    err = network.max_abs_error(x, w, *outputs)
    return f"output shape {want}, max abs error {err:.1e}", err


NOT_GIVEN = "Feed only what build_fed was given: map your placeholder to x itself, not to a copy or another array."


def _foreign(exc):
    return False, f"the feed_dict gives {exc.args[0][:80]!r} a value that is neither the X nor the W given", NOT_GIVEN


def _correct(facts):
    if not _feeds_x(facts):
        return (False, *NO_X)
    x_own, w = _own(), _data()[1]
    try:
        y = _fed_run(facts, x_own)
    except rerun.ForeignFeed as exc:
        return _foreign(exc)
    seen, err = _compared(x_own, w, y)
    ok, shaped = err < 1e-9, y.shape == network.output_shape(BATCH)
    # The likely mistake behind what was seen: a wrong shape is the windows' strides or padding; a right shape with
    # wrong values is the ops themselves.
    mistake = ("" if ok else "The shape is right, the values are not: check the ops and their order against the "
               "starter's network(), which the reference follows." if shaped else
               "The output's shape is not the reference's: compare the strides, ksize and padding of your ops with "
               "the starter's network().")
    return ok, seen, mistake


@hint("Run the output with the returned feed_dict; the result must match conv2d -> avg_pool -> relu.")
@on_error(("does not match type", DTYPE_HINT),
          ("You must feed a value for placeholder", "Return a feed_dict that maps your placeholder to x, the array "
           "build_fed was given (step 3)."))
@judged_by(_correct)
@shares("build_fed")
def fed_graph_is_correct(mod):
    """build_fed's output matches the NumPy reference"""
    return _fed(mod)


def _any_batch(facts):
    if not _feeds_x(facts):
        return (False, *NO_X)
    x7, w = _own(7), _data()[1]
    try:
        y = _fed_run(facts, x7)
    except rerun.ForeignFeed as exc:
        return _foreign(exc)
    seen, err = _compared(x7, w, y)
    return err < 1e-9, f"a batch of 7 fed for X: {seen}", ""


@hint(FIXED_BATCH_HINT)
@on_error(("Cannot feed value of shape", FIXED_BATCH_HINT), ("does not match type", DTYPE_HINT))
@judged_by(_any_batch)
@shares("build_fed")
def fed_graph_takes_any_batch(mod):
    """build_fed's graph runs on a batch of another size"""
    return _fed(mod)


PYTHON_OPS = {"PyFunc", "PyFuncStateless", "EagerPyFunc"}   # tf.numpy_function / tf.py_function


def _loaded_runs(facts, x_own):
    """(first, second, variables holding x_own): build_loaded's graph run here, its initializer fed x_own for X."""
    x, w = _data()
    graph = rerun.imported(facts["graph"])
    feed = rerun.own_feed(graph, facts["feed"], ((x, x_own), (w, w)))
    reads = rerun.variable_reads(graph)
    with tf.compat.v1.Session(graph=graph) as sess:
        rerun.run(sess, facts["init"], feed)
        first = np.asarray(rerun.run(sess, facts["output"]))
        second = np.asarray(rerun.run(sess, facts["output"]))
        return first, second, rerun.holding(sess, reads, x_own)


def _loaded(facts):
    graph_def = rerun.graph_def(facts["graph"])
    size = graph_def.ByteSize()
    if size >= SMALL:
        return False, f"GraphDef is {size:,} bytes", ("The GraphDef holds X's bytes: the variable's initial value must "
                                                      "come from a placeholder, not the array (step 4).")
    python = sorted({n.op for n in graph_def.node} & PYTHON_OPS)
    if python:
        return False, f"the graph calls back into Python ({', '.join(python)})", (
            "X must live in the TensorFlow runtime after the initializer; do not fetch it from Python on each run.")
    # Another X than the one build_loaded was given: what the variable holds must come from the initializer's feed.
    x_own, w = _own(), _data()[1]
    try:
        first, second, holds = _loaded_runs(facts, x_own)
    except rerun.ForeignFeed as exc:
        return _foreign(exc)
    seen, err = _compared(x_own, w, first, second)
    ok = err < 1e-9 and np.array_equal(first, second) and bool(holds)
    where = f"X held in {holds[0]}" if holds else "no variable holds X after the initializer"
    return ok, f"GraphDef {size:,} bytes, {where}, two unfed runs: {seen}", (
        "" if holds or not err < 1e-9 else "No variable holds X after the initializer ran: step 4 says what the "
        "variable is initialised from and what the network reads.")


@hint("X must be held by a variable that the initializer's one fed run fills, and later runs must read it "
      "(step 4).")
@on_error(("You must feed a value for placeholder", "A later run, with no feed, still needs the placeholder: the "
           "network must read the variable (its value after the initializer), not the placeholder of its initial "
           "value."), ("does not match type", DTYPE_HINT))
@judged_by(_loaded)
def loaded_graph_needs_no_feed(mod):
    """build_loaded holds X in a variable after one fed initializer, and later runs need no feed"""
    x, w = _data()
    graph, out, init, init_feed = mod.build_loaded(x, w)
    return {"graph": rerun.serialized(graph), "output": rerun.name_of(graph, out), "init": rerun.name_of(graph, init),
            "feed": rerun.feed_of(graph, init_feed)}


CHECKS = (fed_graph_is_small, fed_graph_is_correct, fed_graph_takes_any_batch, loaded_graph_needs_no_feed)
