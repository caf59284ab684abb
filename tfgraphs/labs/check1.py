"""Lab 1 checks: build_fed(x, w) keeps X out of the graph; build_loaded(x, w) loads it once into a variable."""

import numpy as np
import tensorflow as tf

from tfgraphs.graphdef.consts import tensor_bytes
from tfgraphs.spec import network
from tfgraphs.labs.marks import hint, judged_by, on_error

BATCH = 50
SMALL = 10_000   # bytes: the seed network's nodes without X serialize to about 1 KB
DTYPE_HINT = ("X and W are float64 arrays: give the placeholder dtype tf.float64 (x.dtype), the arrays' own, so "
              "that conv2d gets one dtype.")
FIXED_BATCH_HINT = "The placeholder's shape fixes the batch: give it shape [None, 32, 32, 1]."


def _data(batch=BATCH, seed=0):
    return network.make_data(batch, "float64", seed)


def _graph_bytes(graph):
    return graph.as_graph_def().ByteSize()


def _small(facts):
    size, ok = facts["size"], facts["size"] < SMALL
    name, held = facts["largest"] or ("", 0)
    seen = f"the GraphDef is {size:,} bytes for {facts['x_bytes']:,} bytes of X" + (
        f"; the Const {name!r} holds {held:,} of them" if not ok and held else "")
    return ok, seen, ("" if ok else f"The Const {name!r} is X, converted into the graph by tf.constant or by passing "
                      "the array to an op: make X a tf.compat.v1.placeholder(tf.float64, [None, 32, 32, 1]) and "
                      "put the array in the feed_dict.")


@hint("Make X a tf.compat.v1.placeholder(tf.float64, [None, 32, 32, 1]) and put the array in the feed_dict.")
@on_error(("does not match type", DTYPE_HINT))
@judged_by(_small)
def fed_graph_is_small(mod):
    """X is not in build_fed's GraphDef"""
    x, w = _data()
    graph, _, _ = mod.build_fed(x, w)
    consts = [(op.name, tensor_bytes(op.get_attr("value"))) for op in graph.get_operations() if op.type == "Const"]
    return {"size": _graph_bytes(graph), "x_bytes": x.nbytes,
            "largest": max(consts, key=lambda c: c[1]) if consts else None}


def _correct(facts):
    x, w = _data()
    y = facts["y"]
    err = network.max_abs_error(x, w, y)
    shaped = y.shape == network.output_shape(BATCH)
    ok = shaped and err < 1e-9
    # The likely mistake behind what was seen: a wrong shape is the windows' strides or padding; a right shape with
    # wrong values is the ops themselves.
    mistake = ("" if ok else "The shape is right, the values are not: check the ops and their order (conv2d with W, "
               "then avg_pool, not max_pool, then relu)." if shaped else
               "Check strides [1,1,1,1] VALID for conv2d, ksize/strides [1,2,2,1] VALID for avg_pool, then relu.")
    return ok, f"output shape {y.shape}, max abs error {err:.1e}", mistake


@hint("Run the output with the returned feed_dict; the result must match conv2d -> avg_pool -> relu.")
@on_error(("does not match type", DTYPE_HINT),
          ("You must feed a value for placeholder", "Return a feed_dict that maps your placeholder to x: {X: x}."))
@judged_by(_correct)
def fed_graph_is_correct(mod):
    """build_fed's output matches the NumPy reference"""
    x, w = _data()
    graph, out, feed = mod.build_fed(x, w)
    with tf.compat.v1.Session(graph=graph) as sess:
        return {"y": np.asarray(sess.run(out, feed_dict=feed))}


def _any_batch(facts):
    if facts["y"] is None:
        return False, "the feed_dict has no entry with X's shape", ("Return a feed_dict that maps your placeholder "
                                                                     "to x itself: {X: x}.")
    x7, w = _data(7, seed=1)[0], _data()[1]
    err = network.max_abs_error(x7, w, facts["y"])
    return err < 1e-9, f"a batch of 7 fed for X gave shape {facts['y'].shape}", ""


@hint(FIXED_BATCH_HINT)
@on_error(("Cannot feed value of shape", FIXED_BATCH_HINT), ("does not match type", DTYPE_HINT))
@judged_by(_any_batch)
def fed_graph_takes_any_batch(mod):
    """build_fed's graph runs on a batch of another size"""
    x, w = _data()
    graph, out, feed = mod.build_fed(x, w)
    # A feed value may be the array, a list or anything numpy reads as X's shape.
    x_key = next((k for k, v in feed.items() if np.shape(v) == x.shape), None)
    if x_key is None:
        return {"y": None}
    x7, _ = _data(7, seed=1)
    with tf.compat.v1.Session(graph=graph) as sess:
        return {"y": np.asarray(sess.run(out, feed_dict={**feed, x_key: x7}))}


PYTHON_OPS = {"PyFunc", "PyFuncStateless", "EagerPyFunc"}   # tf.numpy_function / tf.py_function


def _loaded(facts):
    size = facts["size"]
    if size >= SMALL:
        return False, f"GraphDef is {size:,} bytes", "The initial value must come from a placeholder, not the array."
    if facts["python"]:
        return False, f"the graph calls back into Python ({', '.join(facts['python'])})", (
            "X must live in the TensorFlow runtime after the initializer; do not fetch it from Python on each run.")
    x, w = _data()
    first, second, holds = facts["first"], facts["second"], facts["holds"]
    err = network.max_abs_error(x, w, first, second)
    ok = err < 1e-9 and np.array_equal(first, second) and bool(holds)
    where = f"X held in {holds[0]}" if holds else "no variable holds X after the initializer"
    return ok, f"GraphDef {size:,} bytes, {where}, max abs error {err:.1e} over two unfed runs", (
        "" if holds or not err < 1e-9 else "Initialise a variable from a placeholder fed with X; run the network on it.")


@hint("Create tf.compat.v1.Variable(placeholder, trainable=False); its initializer is fed once with the array.")
@on_error(("You must feed a value for placeholder", "A later run, with no feed, still needs the placeholder: the "
           "network must read the variable (its value after the initializer), not the placeholder of its initial "
           "value."), ("does not match type", DTYPE_HINT))
@judged_by(_loaded)
def loaded_graph_needs_no_feed(mod):
    """build_loaded holds X in a variable after one fed initializer, and later runs need no feed"""
    x, w = _data()
    # A copy to judge by: TensorFlow may keep the fed array's own buffer as the variable's value.
    kept = x.copy()
    graph, out, init, init_feed = mod.build_loaded(x, w)
    size = _graph_bytes(graph)
    python = sorted({op.type for op in graph.get_operations()} & PYTHON_OPS)
    if size >= SMALL or python:
        return {"size": size, "python": python}
    with graph.as_default():
        variables = tf.compat.v1.global_variables()
    with tf.compat.v1.Session(graph=graph) as sess:
        sess.run(init, feed_dict=init_feed)
        first = np.asarray(sess.run(out))
        second = np.asarray(sess.run(out))
        holds = [v.name for v in variables if np.shape(sess.run(v)) == kept.shape
                 and np.array_equal(sess.run(v), kept)]
    return {"size": size, "python": python, "first": first, "second": second, "holds": holds}


CHECKS = (fed_graph_is_small, fed_graph_is_correct, fed_graph_takes_any_batch, loaded_graph_needs_no_feed)
