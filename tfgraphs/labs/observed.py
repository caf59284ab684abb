"""Labs 4-6, whose checks see the student's code as it runs in its own process, and the sessions that record it.

What only that process can see is recorded there and sent as plain data: the input shapes TensorFlow's convolution
ops get (an op callback), and which sessions the code opened and what each run fetched and fed (RecordingSession,
TracingSession). Graphs it built are rerun by the judge (labs.rerun). Lab 4: blocked_conv1d equals a VALID 1-D
convolution and the convolution only ever sees one shape. Lab 5: warm_up builds the very executor serve() uses,
first_request_seconds times it, and the answer to question 1 is what the judge says of the student's own samples.
Lab 6: train() fits like NumPy's gradient descent, in one graph that never grows, finalized before it runs.
"""

import numbers
from contextlib import contextmanager

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import op_callbacks   # sees every op TensorFlow runs or builds, whatever the API

from tfgraphs.labs import rerun
from tfgraphs.labs.checking import hint, judged_by
from tfgraphs.records.judge import FEWEST, RANK_SUM, judge
from tfgraphs.spec import network

v1 = tf.compat.v1


def signature(graph, fetches, feed_dict=None):
    """(fetched names, fed names) of one run: what TensorFlow keys its executors by, order left out."""
    fetched = frozenset(graph.as_graph_element(f).name for f in tf.nest.flatten(fetches))
    fed = frozenset(graph.as_graph_element(k).name for k in (feed_dict or {}))
    return fetched, fed


class RecordingSession(v1.Session):
    """A Session that keeps, for each run, its signature and whether its graph was finalized then."""

    created = []   # every RecordingSession made while recording(), in order

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.runs = []
        RecordingSession.created.append(self)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        self.runs.append((signature(self.graph, fetches, feed_dict), self.graph.finalized))
        return super().run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    @property
    def signatures(self):
        """Each run's signature, in order."""
        return [s for s, _ in self.runs]


class TracingSession(v1.Session):
    """A Session whose every run asks TensorFlow for the partition graphs of the executor it ran, and keeps the
    RunMetadata's bytes, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.metadata = []

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        asked = v1.RunOptions()
        if options is not None:
            asked.CopyFrom(options)
        asked.output_partition_graphs = True
        meta = run_metadata if run_metadata is not None else v1.RunMetadata()
        try:
            return super().run(fetches, feed_dict=feed_dict, options=asked, run_metadata=meta)
        finally:
            self.metadata.append(meta.SerializeToString())


def executor(data):
    """(fed, fetched) tensor names of the executor a run ran, from its RunMetadata's bytes: the _Arg and _Retval
    nodes TensorFlow put in its partition graphs ('_arg_X_0_0' feeds X:0, the last number being its place)."""
    meta = tf.compat.v1.RunMetadata.FromString(data)
    ends = {"_Arg": ("_arg_", set()), "_Retval": ("_retval_", set())}
    for graph in meta.partition_graphs:
        for node in graph.node:
            if node.op in ends and node.name.startswith(ends[node.op][0]):
                tensor = node.name[len(ends[node.op][0]):].rsplit("_", 1)[0]
                ends[node.op][1].add(":".join(tensor.rsplit("_", 1)))
    return frozenset(ends["_Arg"][1]), frozenset(ends["_Retval"][1])


@contextmanager
def recording():
    """Within it, tf.compat.v1.Session makes RecordingSessions; yields the list of those created."""
    original, created = v1.Session, []
    RecordingSession.created = created
    v1.Session = RecordingSession
    try:
        yield created
    finally:
        v1.Session = original


# Lab 4: one shape only.

LENGTHS = (7, 40, 64, 101, 250, 3000, 5000)   # long inputs too: a fixed maximum length must not do
BATCHES = (1, 2, 3)
KERNEL, CHANNELS, FILTERS, BLOCK = 7, 3, 4, 32


def _is_convolution(op_type):
    if isinstance(op_type, bytes):   # eager ops report their type as bytes
        op_type = op_type.decode()
    return op_type.startswith(("Conv", "DepthwiseConv")) and "Backprop" not in op_type


def reference(x, filters):
    """VALID, stride-1 1-D convolution (cross-correlation, as TensorFlow computes it) in NumPy."""
    windows = np.lib.stride_tricks.sliding_window_view(x, filters.shape[0], axis=1)   # [b, out, c, k]
    return np.einsum("botk,ktf->bof", windows.astype(np.float64), filters.astype(np.float64))


def _inputs():
    """(filters, [(batch, length, x), ...]): the same draws, in the same order, wherever they are made."""
    rng = np.random.default_rng(0)
    filters = rng.standard_normal((KERNEL, CHANNELS, FILTERS)).astype(np.float32)
    return filters, [(b, n, rng.standard_normal((b, n, CHANNELS)).astype(np.float32)) for b in BATCHES for n in LENGTHS]


def _run(mod):
    """Facts: every output blocked_conv1d gave, in order, and {batch: convolution input shapes seen}."""
    filters, cases = _inputs()
    seen, outputs = {}, []
    batch = [None]

    def watch(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if _is_convolution(op_type):
            seen.setdefault(batch[0], set()).add(tuple(inputs[0].shape))
        return None

    op_callbacks.add_op_callback(watch)
    try:
        for batch[0], length, x in cases:
            outputs.append(np.asarray(mod.blocked_conv1d(tf.constant(x), tf.constant(filters), BLOCK)))
            if outputs[-1].shape != reference(x, filters).shape:
                break
    finally:
        op_callbacks.remove_op_callback(watch)
    return {"outputs": outputs, "seen": seen}


def _compared(facts):
    """(largest relative error or None, problem or None), each output against the NumPy reference of its input."""
    filters, cases = _inputs()
    worst = 0.0
    for (batch, length, x), got in zip(cases, facts["outputs"]):
        want = reference(x, filters)
        if got.shape != want.shape:
            return None, f"batch {batch}, length {length}: shape {got.shape}, expected {want.shape}"
        worst = max(worst, float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-12)))
    return worst, None


def _matches(facts):
    worst, problem = _compared(facts)
    if problem:
        return False, problem, ""
    return worst <= 1e-4, f"largest relative error {worst:.1e} over lengths {LENGTHS} at batches {BATCHES}", ""


@hint("Compare your output with a VALID tf.nn.conv1d of the same input, at the lengths and batches the seen line "
      "names: step 3 says where each block starts, how many samples it holds and which outputs to keep.")
@judged_by(_matches)
def matches_conv1d(mod):
    """blocked_conv1d(x, filters, block_len) equals tf.nn.conv1d(..., padding='VALID')"""
    return _run(mod)


def _one_shape(facts):
    _, problem = _compared(facts)
    seen = facts["seen"]
    if problem:
        return False, problem, "Make the output right first: the check that it equals a VALID conv1d says what differs."
    if not seen:
        return False, "no convolution op ran", ("The checker sees only TensorFlow's convolution ops, and "
                                                "blocked_conv1d ran none: step 3 lists the calls it watches.")
    many = {b: sorted(s, key=str) for b, s in seen.items() if len(s) != 1}
    if many:
        b, shapes = next(iter(many.items()))
        return False, f"at batch {b} the convolution saw {len(shapes)} shapes: {shapes[:4]}", ""
    span = BLOCK + KERNEL - 1
    # conv1d runs as Conv2D on [n, 1, samples, channels]; the samples axis is the one before the channels.
    wrong = {b: s for b, (s,) in seen.items() if s[-2] != span}
    if wrong:
        b, shape = next(iter(wrong.items()))
        return False, f"at batch {b} the convolution saw {shape}: {shape[-2]} samples, not blocks of {span}", ""
    return True, "; ".join(f"batch {b}: {next(iter(s))}" for b, s in sorted(seen.items())), ""


@hint("The seen line gives the convolution's input shapes: at one batch size every call must see the same shape, "
      "made of blocks as step 3 describes; `tfgraphs shapes` times a first and a second pass over new shapes.")
@judged_by(_one_shape)
def one_shape_only(mod):
    """every convolution op sees one input shape per batch size, of block_len + kernel - 1 samples"""
    return _run(mod)


LAB4 = (matches_conv1d, one_shape_only)


# Lab 5: warm before serving.

BATCH = 8


def _served_data():
    x, w = network.make_data(BATCH, "float64", 0)
    return x, w


def _served(graph, x, fetches):
    """The signature of the run serve() makes."""
    return signature(graph, fetches, {x: None})


def _executors(runs):
    """'fetch [..] fed [..]' of each distinct executor among runs' RunMetadata, as TensorFlow's partition graphs
    name them."""
    return [f"fetch [{', '.join(sorted(got))}] fed [{', '.join(sorted(fed))}]"
            for fed, got in dict.fromkeys(map(executor, runs))]


def _warmed(facts):
    served, warmed = _executors(facts["served"]), _executors(facts["warmed"])
    if not served:
        return False, "serve() made no run", ""
    ran = "; ".join(warmed) or "nothing"
    return served[0] in warmed, f"warm_up ran {ran}; serve() runs {served[0]}", ""


@hint("The seen line names each executor by its fetches and feeds, as TensorFlow's partition graphs give them: "
      "compare warm_up's with serve()'s, and read what serve() passes to sess.run (step 3).")
@judged_by(_warmed)
def warms_what_is_served(mod):
    """warm_up runs the same fetches and feeds as serve()"""
    data, w = _served_data()
    graph, x, fetches = mod.build_model(w)
    # Each run's RunMetadata holds the partition graphs of the executor it ran: TensorFlow's own record of it.
    with TracingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        warmed = list(sess.metadata)
        mod.serve(sess, x, fetches, data)
    return {"warmed": warmed, "served": sess.metadata[len(warmed):]}


def _right(facts):
    # Another batch than the one the checker's body had: the judge runs the graph warm_up left on its own data.
    data, w = network.make_data(BATCH, "float64", 1)[0], _served_data()[1]
    graph = rerun.imported(facts["after"])
    with tf.compat.v1.Session(graph=graph) as sess:
        got = rerun.run(sess, facts["fetches"], {facts["x"]: data})
    want = network.reference_forward(data, w)
    err = max(float(np.max(np.abs(got["scores"] - want))),
              float(np.max(np.abs(got["features"] - want.mean(axis=(1, 2))))))
    added = len(rerun.graph_def(facts["after"]).node) - len(rerun.graph_def(facts["before"]).node)
    return err < 1e-9 and added == 0, f"max abs error {err:.1e}; warm_up added {added} ops", ""


@hint("warm_up must only run the model: no variables to change, no ops to add.")
@judged_by(_right)
def answers_stay_right(mod):
    """after warm_up, serve() still matches the NumPy reference"""
    data, w = _served_data()
    graph, x, fetches = mod.build_model(w)
    before = rerun.serialized(graph)
    with RecordingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
    return {"before": before, "after": rerun.serialized(graph), "x": rerun.name_of(graph, x),
            "fetches": {key: rerun.name_of(graph, t) for key, t in fetches.items()}}


def _both(facts):
    seconds, sessions, counts = facts["seconds"], facts["sessions"], facts["counts"]
    for warm in (False, True):
        if sessions.get(warm) != 1:
            return False, f"warm={warm}: {sessions.get(warm)} sessions opened, expected one fresh session", ""
    if not all(isinstance(s, float) and s > 0 for s in seconds.values()):
        return False, f"returned {seconds[False]!r} and {seconds[True]!r}, expected seconds > 0", ""
    ok = counts[False] == 1 and counts[True] >= 2
    return ok, (f"cold session ran serve()'s executor {counts[False]} time(s), the warmed one {counts[True]}; first "
                f"request {seconds[False] * 1e3:.2f} ms cold, {seconds[True] * 1e3:.2f} ms warmed, one of each: "
                f"not compared"), ""


@hint("The seen line counts the sessions each call opened and the runs of serve()'s executor in each: step 4 says "
      "what one call of first_request_seconds opens, runs, times and returns.")
@judged_by(_both)
def measures_both_first_requests(mod):
    """first_request_seconds times the first serve() in a fresh session, cold and warmed"""
    data, w = _served_data()
    seconds, sessions, counts = {}, {}, {}
    for warm in (False, True):
        with recording() as created:
            seconds[warm] = mod.first_request_seconds(w, data, warm)
        sessions[warm] = len(created)
        if len(created) != 1:
            break
        graph = created[0].graph
        x = graph.get_tensor_by_name("X:0")
        fetches = {"scores": graph.get_tensor_by_name("scores:0"), "features": graph.get_tensor_by_name("features:0")}
        counts[warm] = created[0].signatures.count(_served(graph, x, fetches))
    return {"seconds": seconds, "sessions": sessions, "counts": counts}


OUTCOMES = ("differs", "no difference", "cannot tell")
COPY_HINT = ("Run the Try it and copy the COLD_MS and WARM_MS lists it printed, and the outcome its last line gave "
             "them, into JUDGE_SAID.")


def _samples(values):
    """The values as a list of times > 0, or None when they are not that."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        return None
    ok = all(isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0 for v in values)
    return list(values) if ok else None


def judge_answer(facts):
    """(passed, seen, hint) of answer_is_what_your_run_shows: JUDGE_SAID is the judge's outcome of the samples."""
    cold, warm, judge_said = _samples(facts["cold"]), _samples(facts["warm"]), facts["said"]
    if not cold or not warm:
        shown = [list(v) if isinstance(v, tuple) else v for v in (facts["cold"], facts["warm"])]
        return False, f"COLD_MS = {shown[0]!r}, WARM_MS = {shown[1]!r}: expected two lists of times > 0", ""
    fewest = FEWEST[RANK_SUM]
    if min(len(cold), len(warm)) < fewest:
        # Below this a rank test cannot say "differs" whatever the times: the question could not be answered.
        return False, f"n={len(cold)} and {len(warm)}: a rank test needs {fewest} a side to be able to say differs", (
            f"Run the Try it with ROUNDS of at least {fewest}, and copy its lists.")
    verdict = judge(cold, warm)
    answer = judge_said.strip().lower() if isinstance(judge_said, str) else ""
    given = next((o for o in OUTCOMES if answer.startswith(o)), None)
    seen = f"the judge says of your samples: {verdict.says()}; JUDGE_SAID is {judge_said!r}"
    if given is None:
        return False, seen, f"JUDGE_SAID is one of {', '.join(map(repr, OUTCOMES))}: the outcome the judge gave."
    ok = given == verdict.outcome
    return ok, seen, "" if ok else ("Answer with what the judge says of your own samples, not what you expected: "
                                    "'no difference' and 'cannot tell' are answers too.")


@hint(COPY_HINT)
@judged_by(judge_answer)
def answer_is_what_your_run_shows(mod):
    """JUDGE_SAID is what the judge says of your COLD_MS against your WARM_MS"""
    return {"cold": getattr(mod, "COLD_MS", None), "warm": getattr(mod, "WARM_MS", None),
            "said": getattr(mod, "JUDGE_SAID", None)}


LAB5 = (warms_what_is_served, answers_stay_right, measures_both_first_requests, answer_is_what_your_run_shows)


# Lab 6: a graph that grows.

LEARNING_RATE = 0.1   # as in the starter


def _training_data():
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
    x, y = _training_data()
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
    x, y = _training_data()
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
    x, y = _training_data()
    return {"graphs": {steps: rerun.serialized(mod.train(x, y, steps)[1]) for steps in (2, 8)}}


def _one_each(facts):
    ok = facts["sessions"] == 1 and facts["same"]
    return ok, f"{facts['sessions']} sessions on {facts['graphs']} graphs for 4 steps", ""


@hint("The seen line counts the sessions and graphs your steps ran in: step 5 asks for one of each for every "
      "step.")
@judged_by(_one_each)
def one_graph_one_session(mod):
    """every step runs in the same session and graph"""
    x, y = _training_data()
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
    x, y = _training_data()
    with recording() as created:
        _, graph = mod.train(x, y, 3)
    return {"runs": [finalized for s in created for _, finalized in s.runs], "finalized": bool(graph.finalized)}


LAB6 = (matches_numpy, graph_does_not_grow, one_graph_one_session, finalized_before_training)


CHECKS = {4: LAB4, 5: LAB5, 6: LAB6}
