"""Labs 1-3, whose judge reruns what TensorFlow serialized in the student's process, and how it reruns it.

What crosses is TensorFlow's own serialization (a GraphDef's bytes, tensor names, the arrays a feed_dict gives, a
ConfigProto), never a size, an output or a verdict computed beside the student's code: the judge imports,
measures and runs it itself on its own inputs. Lab 1: build_fed(x, w) keeps X out of the graph; build_loaded(x, w)
loads it once into a variable. Lab 2: session presets as ConfigProto, reading traced ops, and the first run's excess.
Lab 3: count Const bytes, find the 2 GiB batch limit, strip tensor contents.
"""

import math
import secrets

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.framework import op_def_registry

from tfgraphs.graphdef import consts
from tfgraphs.labs.verdicts import (GraphFailed, hint, judged_by, on_error, remaining_ms, shares,
                                    stopped_detail)
from tfgraphs.spec import network
from tfgraphs.worker import graphs
from tfgraphs.worker.graphs import session_config

VARIABLE_OPS = {"VariableV2", "Variable", "VarHandleOp"}
# The ops with effects beyond their outputs that a lab's graph may hold: its variables. Every other op TensorFlow
# registers as stateful (printing, writing files, calling Python) is not run here, nor Abort, which ends the process.
RUNNABLE_STATEFUL = VARIABLE_OPS | {"AssignVariableOp", "ReadVariableOp", "VarIsInitializedOp",
                                    "AssignAddVariableOp", "AssignSubVariableOp", "ResourceApplyGradientDescent"}
NEVER_RUN = {"Abort"}
# Ops TensorFlow registers as stateless that still read the judge's files: their inputs or attributes name a file, a
# path, a folder, a pattern of names or a memory region (ReadFile, MatchingFiles, ImmutableConst, DecodeProtoV2...),
# and datasets, which read what their source names when a stateless op reduces them.
FILE_WORDS = ("file", "path", "dir", "pattern", "descriptor", "region", "prefix")
# A tensor the judge makes from a student's graph: at most this many bytes each, and in all, known before the run.
MAX_TENSOR_BYTES = 256 * 2**20
MAX_GRAPH_BYTES = 2 * 2**30


class ForeignFeed(Exception):
    """A feed_dict gives a tensor a value the checker never gave the student's code."""


def serialized(graph):
    """The child's side: graph as the bytes of its GraphDef."""
    return graph.as_graph_def().SerializeToString()


def name_of(graph, element):
    """The child's side: the name of a tensor or op (or of what a name string refers to) in graph."""
    return graph.as_graph_element(element).name


def feed_of(graph, feed):
    """The child's side: a feed_dict as {tensor name: the value as an array}."""
    return {name_of(graph, key): np.asarray(value) for key, value in (feed or {}).items()}


def graph_def(data):
    """The GraphDef in the bytes a child sent."""
    return tf.compat.v1.GraphDef.FromString(data)


def largest_const(proto):
    """(name, bytes) of the GraphDef's Const holding the most bytes once expanded, or None."""
    held = [(n.name, consts.tensor_bytes(n.attr["value"].tensor)) for n in proto.node if n.op == "Const"]
    return max(held, key=lambda c: c[1]) if held else None


def imported(data):
    """A new Graph holding the GraphDef in data, its node names unchanged; GraphFailed, before anything is imported,
    when it holds an op the judge does not run."""
    proto = graph_def(data)
    refused = refused_ops(proto)
    if refused:
        raise GraphFailed(f"it holds {', '.join(refused)[:200]}: ops whose effects reach beyond the graph's outputs, "
                          f"that read files, or that TensorFlow does not know, are not run by the checker")
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(proto, name="")
    return graph


def _runnable(op_type):
    """True for an op the judge runs: one TensorFlow registers, without effects beyond its outputs but a variable's,
    that reads no file."""
    op_def = op_def_registry.get(op_type)
    if op_def is None or op_type in NEVER_RUN or "Dataset" in op_type:
        return False
    named = [a.name.lower() for a in op_def.input_arg] + [a.name.lower() for a in op_def.attr]
    if any(word in name for name in named for word in FILE_WORDS):
        return False
    return not op_def.is_stateful or op_type in RUNNABLE_STATEFUL


def refused_ops(proto):
    """The op types of a GraphDef (function bodies too) that the judge does not run, sorted."""
    return sorted({n.op for _, n in consts.located_nodes(proto) if not _runnable(n.op)})


def bounded(graph, feed):
    """GraphFailed, before anything runs, when an op of graph would make a tensor past MAX_TENSOR_BYTES (or all of
    them past MAX_GRAPH_BYTES) once fed feed's shapes, as TensorFlow's shape inference knows them before the run (a
    size that only values decide, as a gradient's, is bounded by the check's time limit alone)."""
    shaped = graph   # fed the shapes it was built with, its shapes are those TensorFlow inferred already
    if any(not t.shape.is_fully_defined() or t.shape.as_list() != list(np.shape(v)) for t, v in feed.items()):
        shaped = tf.Graph()
        with shaped.as_default():
            given = {t.name: tf.compat.v1.placeholder(t.dtype.base_dtype, np.shape(v)) for t, v in feed.items()}
            tf.compat.v1.import_graph_def(graph.as_graph_def(), input_map=given, name="")
    total = 0
    for op in shaped.get_operations():
        for out in op.outputs:
            if out.dtype == tf.resource or out.dtype == tf.variant:
                continue
            shape = out.shape
            if not shape.is_fully_defined():
                continue
            size = math.prod(shape.as_list()) * (consts.TSTRING_BYTES if out.dtype == tf.string else
                                                 out.dtype.base_dtype.size)
            total += size
            if size > MAX_TENSOR_BYTES or total > MAX_GRAPH_BYTES:
                raise GraphFailed(f"{op.type} {op.name[:80]!r} would make {size:,} bytes ({total:,} in all), more "
                                  f"than the checker makes for a lab ({MAX_TENSOR_BYTES:,} a tensor)")


def own_feed(graph, given, replacements):
    """The judge's feed_dict for the student's: each value equal to one the checker gave becomes the judge's own
    counterpart from (given, own) replacements; any other value raises ForeignFeed."""
    feed = {}
    for name, value in given.items():
        own = next((o for g, o in replacements if np.shape(value) == g.shape and np.array_equal(value, g)), None)
        if own is None:
            raise ForeignFeed(name)
        feed[graph.get_tensor_by_name(name)] = own
    return feed


def run(sess, fetches, feed_dict=None, options=None, run_metadata=None):
    """sess.run in the judge, bounded in size before it starts and in time by what is left of the check's limit; its
    error raised as GraphFailed."""
    bounded(sess.graph, {sess.graph.as_graph_element(k): v for k, v in (feed_dict or {}).items()})
    asked = tf.compat.v1.RunOptions()
    if options is not None:
        asked.CopyFrom(options)
    asked.timeout_in_ms = remaining_ms()
    try:
        return sess.run(fetches, feed_dict=feed_dict, options=asked, run_metadata=run_metadata)
    except tf.errors.DeadlineExceededError:
        raise GraphFailed(stopped_detail(), ran=True) from None
    except (tf.errors.OpError, ValueError, TypeError, KeyError) as exc:
        raise GraphFailed(str(exc)) from exc


def variable_reads(graph):
    """(name, tensor reading its value) of each variable in graph; a resource variable gets a read op of its own."""
    reads = []
    with graph.as_default():
        for op in graph.get_operations():
            if op.type == "VarHandleOp":
                reads.append((op.name, tf.raw_ops.ReadVariableOp(resource=op.outputs[0], dtype=op.get_attr("dtype"))))
            elif op.type in VARIABLE_OPS:
                reads.append((op.name, op.outputs[0]))
    return reads


def holding(sess, reads, value):
    """Names of the variables whose value, read in sess, equals value; one not yet initialized holds nothing."""
    held = []
    for name, read in reads:
        try:
            got = run(sess, read)
        except GraphFailed:
            continue
        if np.shape(got) == np.shape(value) and np.array_equal(got, value):
            held.append(name)
    return held


# Lab 1: X fed, or loaded once into a variable.

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
    graph = imported(facts["graph"])
    feed = own_feed(graph, facts["feed"], ((x, x_own), (w, w)))
    with tf.compat.v1.Session(graph=graph) as sess:
        return np.asarray(run(sess, facts["output"], feed))


def _fed(mod):
    """What build_fed made, as TensorFlow serializes it: its GraphDef, its output's name and its feed_dict."""
    x, w = _data()
    graph, out, feed = mod.build_fed(x, w)
    return {"graph": serialized(graph), "output": name_of(graph, out), "feed": feed_of(graph, feed)}


def _small(facts):
    proto = graph_def(facts["graph"])
    if facts["output"].split(":")[0] not in {n.name for n in proto.node}:
        return False, f"the GraphDef sent has no node {facts['output'][:80]!r}, build_fed's output", ""
    size, x_bytes = proto.ByteSize(), _data()[0].nbytes
    ok = size < SMALL
    name, held = largest_const(proto) or ("", 0)
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
    except ForeignFeed as exc:
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
    except ForeignFeed as exc:
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
    graph = imported(facts["graph"])
    feed = own_feed(graph, facts["feed"], ((x, x_own), (w, w)))
    reads = variable_reads(graph)
    with tf.compat.v1.Session(graph=graph) as sess:
        run(sess, facts["init"], feed)
        first = np.asarray(run(sess, facts["output"]))
        second = np.asarray(run(sess, facts["output"]))
        return first, second, holding(sess, reads, x_own)


def _loaded(facts):
    proto = graph_def(facts["graph"])
    size = proto.ByteSize()
    if size >= SMALL:
        return False, f"GraphDef is {size:,} bytes", ("The GraphDef holds X's bytes: the variable's initial value must "
                                                      "come from a placeholder, not the array (step 4).")
    python = sorted({n.op for n in proto.node} & PYTHON_OPS)
    if python:
        return False, f"the graph calls back into Python ({', '.join(python)})", (
            "X must live in the TensorFlow runtime after the initializer; do not fetch it from Python on each run.")
    # Another X than the one build_loaded was given: what the variable holds must come from the initializer's feed.
    x_own, w = _own(), _data()[1]
    try:
        first, second, holds = _loaded_runs(facts, x_own)
    except ForeignFeed as exc:
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
    return {"graph": serialized(graph), "output": name_of(graph, out), "init": name_of(graph, init),
            "feed": feed_of(graph, init_feed)}


LAB1 = (fed_graph_is_small, fed_graph_is_correct, fed_graph_takes_any_batch, loaded_graph_needs_no_feed)


# Lab 2: what the first run pays for.

COMBOS = {(True, True): "default", (False, True): "no-grappler", (True, False): "no-folding", (False, False): "bare"}


OFF = rewriter_config_pb2.RewriterConfig.OFF


def effective(config):
    """What a ConfigProto switches, however it is written: (Grappler, its folding, classic folding, L0, the rest)."""
    g = config.graph_options
    grappler = not g.rewrite_options.disable_meta_optimizer
    l0 = g.optimizer_options.opt_level == tf.compat.v1.OptimizerOptions.L0
    rest = tf.compat.v1.ConfigProto()
    rest.CopyFrom(config)
    rest.graph_options.rewrite_options.ClearField("disable_meta_optimizer")
    rest.graph_options.rewrite_options.ClearField("constant_folding")
    rest.graph_options.optimizer_options.ClearField("opt_level")
    rest.graph_options.optimizer_options.ClearField("do_constant_folding")
    return (grappler, grappler and g.rewrite_options.constant_folding != OFF,
            not l0 or g.optimizer_options.do_constant_folding, l0, rest.SerializeToString(deterministic=True))


# What each part of effective() is, and the fields that write it, so a WRONG line names the field to fix.
SWITCHES = (("Grappler", "graph_options.rewrite_options.disable_meta_optimizer"),
            ("Grappler's constant folding", "graph_options.rewrite_options.constant_folding"),
            ("the classic folder", "graph_options.optimizer_options.opt_level and do_constant_folding"),
            ("opt_level L0", "graph_options.optimizer_options.opt_level"),
            ("the other fields", "no other field"))


def _differences(got, want):
    """The index of each switch that differs, and 'Grappler (...) on where off was asked' for it."""
    state = {True: "on", False: "off"}
    return [(i, f"{SWITCHES[i][0]} ({SWITCHES[i][1]}) {state.get(g, 'changed')} where "
                f"{state.get(w, 'the default')} was asked") for i, (g, w) in enumerate(zip(got, want)) if g != w]


def _configs(facts):
    wrong, fields = [], []
    for grappler, folding, written in facts["configs"]:
        got = effective(tf.compat.v1.ConfigProto.FromString(written))
        # Compared by what they switch: a field that changes nothing when the rest is set is not required.
        want = effective(session_config(COMBOS[(grappler, folding)]))
        if got != want:
            found = _differences(got[:4] + (got[4] == want[4],), want[:4] + (True,))
            wrong.append(f"grappler={grappler}, constant_folding={folding}: {'; '.join(t for _, t in found)}")
            fields += [SWITCHES[i][1] for i, _ in found]
    hint_text = ("Set " + ", ".join(dict.fromkeys(fields)) + " as step 3 gives them, and leave every other "
                 "field alone." if wrong else "")
    return not wrong, "; ".join(wrong) if wrong else "all four combinations", hint_text


@hint("session_config must return a ConfigProto that switches Grappler and the two constant folders as step 3 "
      "says; the four combinations are the presets of `tfgraphs explain` (default, no-grappler, no-folding, bare).")
@judged_by(_configs)
def configs_match(mod):
    """session_config(grappler, constant_folding) switches exactly the right optimizers"""
    return {"configs": [(grappler, folding, mod.session_config(grappler=grappler, constant_folding=folding)
                         .SerializeToString()) for grappler, folding in COMBOS]}


def _traced_metadata():
    x, w = network.make_data(20, "float64", 0)
    built = graphs.build("constant", x, w)
    with tf.compat.v1.Session(graph=built.graph, config=session_config("bare")) as sess:
        meta = tf.compat.v1.RunMetadata()
        sess.run(built.output, options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    return meta


def _op_types(facts):
    # The judge's own trace of the same graph and session: the op types that run are the same in every process.
    meta = _traced_metadata()
    want = {t for t, _ in graphs.op_times(meta.step_stats).values() if t}
    got = set(facts["got"])
    # TensorFlow's own nodes (types starting with "_", such as _Retval, and the _SOURCE NoOp) may be counted or not.
    required = {t for t in want if not t.startswith("_")}
    ok = required <= got <= want | {"NoOp"}
    names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    # The likely mistake behind what was seen: node names where op types were asked for, or types left out.
    mistake = ("these are node names (node_name); step 4 says which field of a NodeExecStats holds the op type"
               if got & names - want else f"the trace also ran {sorted(required - got)}" if required - got else
               f"{sorted(got - want - {'NoOp'})} did not run in the trace")
    return ok, f"got {sorted(got)}", "" if ok else mistake


@hint("The op types are in run_metadata.step_stats, node by node on each device: step 4 says which field holds "
      "each node's type.")
@judged_by(_op_types)
def op_types_match(mod):
    """op_types_that_ran(run_metadata) finds every op type in the trace"""
    return {"got": sorted(set(mod.op_types_that_ran(_traced_metadata())), key=str)}


# (first run, later runs, how many of the later runs are slow outliers, listed first or last).
EXCESS_CASES = ((3.0, [1.0, 1.0, 1.0], 0), (2.0, [0.5, 0.5, 9.0], 1), (2.0, [9.0, 0.5, 0.5], 1),
                (1.0, [0.2, 0.4, 0.6, 10.0], 1), (1.0, [0.3, 0.25, 0.35, 0.3, 0.28], 0))


def judge_excess(facts):
    """(passed, seen, hint) of excess_is_robust: each typical later run lies among the usual later runs."""
    wrong = []
    for (first, later, slow), excess in zip(EXCESS_CASES, facts["excess"]):
        typical = first - excess
        normal = sorted(later)[:len(later) - slow]
        if not min(normal) - 1e-12 <= typical <= max(normal) + 1e-12:
            wrong.append(f"later runs {later} gave a typical later run of {typical:.3g}")
    # The observation, not the statistic: which runs the student's summary was dragged towards.
    dragged = any(slow for (_, _, slow), _ in zip(EXCESS_CASES, facts["excess"]))
    return not wrong, "; ".join(wrong) if wrong else f"{len(EXCESS_CASES)} cases", (
        "" if not wrong else "Your typical later run lies outside the usual later runs the seen line lists: one slow "
        "run moved it." if dragged else "")


@hint("A typical later run must lie among the usual later runs, whatever one slow run is.")
@judged_by(judge_excess)
def excess_is_robust(mod):
    """first_run_excess(first_s, later_s) is not dragged by one slow later run"""
    return {"excess": [mod.first_run_excess(first, list(later)) for first, later, _ in EXCESS_CASES]}


LAB2 = (configs_match, op_types_match, excess_is_robust)


# Lab 3: graph bloat.

def _sample_graph_def():
    """Consts stored three ways (tensor_content, a repeated value, a scalar), and one inside a function body."""
    @tf.function(autograph=False)   # autograph writes a module to TMPDIR for each function it converts
    def scale(v):
        return v * tf.constant(np.linspace(0.0, 1.0, 500), tf.float64)   # 4,000 bytes in the function's body

    with tf.Graph().as_default() as g:
        tf.constant(np.arange(1000, dtype=np.float32), name="content")
        tf.constant(7.0, shape=[64, 64], dtype=tf.float64, name="splat")
        tf.constant(3, name="scalar")
        tf.compat.v1.placeholder(tf.float32, [None, 4], name="input")
        scale.get_concrete_function(tf.TensorSpec([500], tf.float64)).add_to_graph(g)
    return g.as_graph_def()


def _const_bytes(facts):
    want, got = consts.const_bytes(_sample_graph_def()), facts["got"]
    seen = f"got {got:,}, not the bytes the sample's Consts expand to" if got != want else f"{got:,} bytes"
    return got == want, seen, ""


@hint("Your total is not the expanded bytes of the sample's Consts (one in tensor_content, one written as a single "
      "repeated value, a scalar, one in a function body): step 3 names the two easy to miss, and `tfgraphs inspect` "
      "lists each Const's bytes.")
@judged_by(_const_bytes)
def const_bytes_match(mod):
    """const_bytes(graph_def) counts every Const's expanded bytes"""
    return {"got": mod.const_bytes(_sample_graph_def())}


def _max_batch(facts):
    wrong = []
    for dtype in network.DTYPES:
        n = facts["batches"][dtype]
        per = network.example_bytes(dtype)
        # Asking TensorFlow of batch n + 1 would copy a tensor of nearly 2 GiB when the arithmetic already says it
        # fits. Which side of the boundary a batch lies on is left unsaid: that side is what the question asks.
        if n * per >= 2**31 or (n + 1) * per < 2**31 or not _refused(n + 1, dtype):
            wrong.append(f"{dtype}: {n:,}")
    return not wrong, ("not the largest batch TensorFlow accepts: " + ", ".join(wrong) if wrong else
                       "float64, float32, float16"), ""


@hint("Read the size check tf.constant makes, in make_tensor_proto (tensorflow/python/framework/tensor_util.py), "
      "or the `max batch` column of the Why table `tfgraphs compare --dtype D --verbose` prints (question 2).")
@judged_by(_max_batch)
def max_batch_matches_tensorflow(mod):
    """max_embedded_batch(dtype) is the last batch TensorFlow accepts"""
    return {"batches": {dtype: mod.max_embedded_batch(dtype) for dtype in network.DTYPES}}


def _refused(batch, dtype):
    """True when TensorFlow refuses X of this batch at creation (asked on a view that costs no memory)."""
    x = np.broadcast_to(np.zeros((), dtype), (batch, network.HEIGHT, network.WIDTH, network.CHANNELS))
    try:
        with tf.Graph().as_default():
            tf.constant(x)
    except ValueError:
        return True
    return False


KEPT_FIELDS = {"dtype", "tensor_shape", "version_number"}


def _stripped(facts):
    if facts["modified"]:
        return False, "the input GraphDef was modified", "Work on a copy."
    gd, stripped = _sample_graph_def(), tf.compat.v1.GraphDef.FromString(facts["stripped"])
    left = [n.name for n, _ in consts.const_nodes(stripped)
            if {f.name for f, _ in n.attr["value"].tensor.ListFields()} - KEPT_FIELDS]
    kept = all(a.attr["value"].tensor.tensor_shape == b.attr["value"].tensor.tensor_shape
               and a.attr["value"].tensor.dtype == b.attr["value"].tensor.dtype
               for a, b in zip(gd.node, stripped.node) if a.op == "Const")
    ok = not left and kept and len(stripped.node) == len(gd.node)
    detail = f"data left in {left}" if left else ("shapes or dtypes changed" if not kept else f"{stripped.ByteSize():,} bytes")
    return ok, detail, ""


@hint("Compare your output with the copy `tfgraphs inspect --strip-constants` writes (step 5): every Const, in "
      "function bodies too, keeps its dtype and tensor_shape and holds no values.")
@judged_by(_stripped)
def strip_keeps_shapes(mod):
    """strip_constants(graph_def) removes every tensor's data and keeps dtype and shape"""
    gd = _sample_graph_def()
    before = gd.SerializeToString()
    stripped = mod.strip_constants(gd)
    return {"modified": gd.SerializeToString() != before, "stripped": stripped.SerializeToString()}


LAB3 = (const_bytes_match, max_batch_matches_tensorflow, strip_keeps_shapes)


CHECKS = {1: LAB1, 2: LAB2, 3: LAB3}
