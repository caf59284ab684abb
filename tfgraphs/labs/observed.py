"""Labs 4-6, whose judge runs what the student's code built or asked for in its own process (labs.rerun,
labs.sessions), on its own inputs, against its own NumPy reference.

Lab 4: blocked_conv1d builds, on placeholders of each checked shape, a graph that the judge runs on inputs and filters
it draws itself; the output must equal a VALID 1-D convolution and, in the judge's run, every convolution op sees one
input shape per batch size. Lab 5: the runs warm_up and serve() make are made by the judge, whose record of each run's
executor (TensorFlow's partition graphs) says whether warm_up built the one serve() uses; first_request_seconds opens
one session and runs that executor; the answer to question 1 is what the judge says of the student's own samples.
Lab 6: train()'s runs are made by the judge: the losses it returns are values those runs fetched and match NumPy's
gradient descent, in one session on a graph that never grows, finalized before it runs.
"""

import hashlib
import math
import numbers
import reprlib

import numpy as np
import tensorflow as tf

from tfgraphs.labs import rerun, sessions
from tfgraphs.labs.verdicts import hint, judged_by, observed, shares
from tfgraphs.records.judge import RANK_SUM, fewest, judge
from tfgraphs.spec import network
from tfgraphs.worker.graphs import session_config

v1 = tf.compat.v1
OBSERVER = sessions.Observer   # the judge makes each run a check's body asks for (labs.checking finds it by name)


def judges_record(facts, seen):
    """A check's facts: what its body returned, beside the judge's own record of the runs it made for that body."""
    return {"returned": facts, **seen.record}


def _cut(record):
    """((mark, its first run, sessions opened before it, its time), the next one's) of each part of a check's body,
    the record's end standing for the mark after the last."""
    marks = list(record["marks"]) + [("", len(record["runs"]), record["sessions"], record["taken"])]
    return zip(marks, marks[1:])


def _parts(record):
    """{mark: (runs, sessions opened)} of each part of a check's body, as its marks cut the judge's record."""
    return {name: (record["runs"][at:after[1]], after[2] - opened) for (name, at, opened, _), after in _cut(record)}


def _windows(record):
    """{mark: seconds from it to the next mark, or to the record's taking}: by the judge's clock, the longest any
    time measured within that part of the body can be."""
    return {name: after[3] - at for (name, _, _, at), after in _cut(record)}


# Lab 4: one shape only.

LENGTHS = (7, 40, 64, 101, 250, 3000, 5000)   # long inputs too: a fixed maximum length must not do
BATCHES = (1, 2, 3)
KERNEL, CHANNELS, FILTERS, BLOCK = 7, 3, 4, 32
SHOWN_SHAPES = 4   # the most input shapes a seen line lists


def _is_convolution(op_type):
    if isinstance(op_type, bytes):   # eager ops report their type as bytes
        op_type = op_type.decode()
    return op_type.startswith(("Conv", "DepthwiseConv")) and "Backprop" not in op_type


def reference(x, filters):
    """VALID, stride-1 1-D convolution (cross-correlation, as TensorFlow computes it) in NumPy."""
    windows = np.lib.stride_tricks.sliding_window_view(x, filters.shape[0], axis=1)   # [b, out, c, k]
    return np.einsum("botk,ktf->bof", windows.astype(np.float64), filters.astype(np.float64))


_RAN = {}   # the digest of the graphs last judged -> what their runs gave


def _built(mod):
    """Facts: for each batch and length, the graph blocked_conv1d built on placeholders of that shape, as TensorFlow
    serialized it, and the names of its input, its filters and its output."""
    built = []
    for batch in BATCHES:
        for length in LENGTHS:
            graph = tf.Graph()
            with graph.as_default():
                x = v1.placeholder(tf.float32, [batch, length, CHANNELS], name="x")
                filters = v1.placeholder(tf.float32, [KERNEL, CHANNELS, FILTERS], name="filters")
                out = mod.blocked_conv1d(x, filters, BLOCK)
            built.append({"batch": batch, "length": length, "graph": rerun.serialized(graph), "x": x.name,
                          "filters": filters.name, "output": rerun.name_of(graph, out)})
    return {"built": built}


def _rerun_built(facts):
    """[(batch, length, largest relative error or the problem, convolution input shapes)]: each graph imported and
    run here on an input and filters drawn from a digest of all the graphs, which the student's process could know
    only after building them, and then could no longer change what they compute."""
    digest = hashlib.sha256(b"".join(rerun.graph_def(case["graph"]).SerializeToString(deterministic=True)
                                     for case in facts["built"])).digest()
    if digest not in _RAN:   # both checks judge the same build: it runs once
        _RAN.clear()
        _RAN[digest] = _run_built(facts, np.random.default_rng(int.from_bytes(digest[:8], "big")))
    return _RAN[digest]


def _run_built(facts, rng):
    """_rerun_built's runs, on inputs drawn from rng."""
    filters = rng.standard_normal((KERNEL, CHANNELS, FILTERS)).astype(np.float32)
    ran = []
    for case in facts["built"]:
        batch, length = int(case["batch"]), int(case["length"])
        x = rng.standard_normal((batch, length, CHANNELS)).astype(np.float32)
        graph = rerun.imported(case["graph"])
        convolutions = [op for op in graph.get_operations() if _is_convolution(op.type)]
        with graph.as_default():
            shapes = [tf.shape(op.inputs[0]) for op in convolutions]
        feed = {graph.get_tensor_by_name(case["x"]): x, graph.get_tensor_by_name(case["filters"]): filters}
        # Grappler off: the outputs and shapes are the same, and rewriting 21 graphs once each would cost the most.
        with v1.Session(graph=graph, config=session_config("bare")) as sess:
            got, seen = rerun.run(sess, (case["output"], shapes), feed)
        want, got = reference(x, filters), np.asarray(got)
        error = (f"batch {batch}, length {length}: shape {got.shape}, expected {want.shape}"
                 if got.shape != want.shape else float(np.max(np.abs(got - want)) / (np.max(np.abs(want)) + 1e-12)))
        ran.append((batch, length, error, {tuple(int(d) for d in s) for s in seen}))
    return ran


def _compared(ran):
    """(largest relative error or None, problem or None) over the judge's runs."""
    problem = next((e for _, _, e, _ in ran if isinstance(e, str)), None)
    if problem or not ran:
        return None, problem or "no graph was built"
    return max(e for _, _, e, _ in ran), None


def _matches(facts):
    worst, problem = _compared(_rerun_built(facts))
    if problem:
        return False, problem, ""
    return worst <= 1e-4, f"largest relative error {worst:.1e} over lengths {LENGTHS} at batches {BATCHES}", ""


@hint("Compare your output with a VALID tf.nn.conv1d of the same input, at the lengths and batches the seen line "
      "names: step 3 says where each block starts, how many samples it holds and which outputs to keep.")
@judged_by(_matches)
@shares("blocked_conv1d")
def matches_conv1d(mod):
    """blocked_conv1d(x, filters, block_len) equals tf.nn.conv1d(..., padding='VALID')"""
    return _built(mod)


def _one_shape(facts):
    ran = _rerun_built(facts)
    _, problem = _compared(ran)
    if problem:
        return False, problem, "Make the output right first: the check that it equals a VALID conv1d says what differs."
    seen = {}
    for batch, _, _, shapes in ran:
        seen.setdefault(batch, set()).update(shapes)
    if not any(seen.values()):
        return False, "no convolution op ran", ("The checker sees only TensorFlow's convolution ops, and "
                                                "blocked_conv1d ran none: step 3 lists the calls it watches.")
    many = {b: sorted(s, key=str) for b, s in seen.items() if len(s) != 1}
    if many:
        b, shapes = next(iter(many.items()))
        listed = f"{len(shapes)} shapes" + (f", {SHOWN_SHAPES} of them" if len(shapes) > SHOWN_SHAPES else "")
        return False, f"at batch {b} the convolution saw {listed}: {shapes[:SHOWN_SHAPES]}", ""
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
@shares("blocked_conv1d")
def one_shape_only(mod):
    """every convolution op sees one input shape per batch size, of block_len + kernel - 1 samples"""
    return _built(mod)


LAB4 = (matches_conv1d, one_shape_only)


# Lab 5: warm before serving.

BATCH = 8
SERVED = (("features:0", "scores:0"), ("X:0",))   # the names the sheet gives build_model's fetches and feed


def _served_data():
    x, w = network.make_data(BATCH, "float64", 0)
    return x, w


def _executor(run):
    """'fetch [..] fed [..]' of the executor the judge ran for one run, as TensorFlow's partition graphs name it."""
    fed, got = run["executor"]
    return f"fetch [{', '.join(got)}] fed [{', '.join(fed)}]"


def _warmed(facts):
    parts = _parts(facts)
    warmed = [r for r in parts.get("warm", ((), 0))[0] if r["ok"]]
    served = [r for r in parts.get("serve", ((), 0))[0] if r["ok"]]
    if not served:
        return False, "serve() made no run the checker could make", ""
    ran = "; ".join(dict.fromkeys(map(_executor, warmed))) or "nothing"
    ok = any(_executor(r) == _executor(served[0]) and r["session"] == served[0]["session"] for r in warmed)
    return ok, f"warm_up ran {ran}; serve() runs {_executor(served[0])}", ""


@hint("The seen line names each executor by its fetches and feeds, as TensorFlow's partition graphs give them: "
      "compare warm_up's with serve()'s, and read what serve() passes to sess.run (step 3).")
@judged_by(_warmed)
@observed(judges_record)
def warms_what_is_served(mod):
    """warm_up runs the same fetches and feeds as serve()"""
    data, w = _served_data()
    graph, x, fetches = mod.build_model(w)
    # Each run is made by the judge, whose RunMetadata holds the partition graphs of the executor it ran.
    with sessions.JudgedSession(graph=graph) as sess:
        sessions.mark("warm")
        mod.warm_up(sess, x, fetches)
        sessions.mark("serve")
        mod.serve(sess, x, fetches, data)
    return {}


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
    with sessions.JudgedSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
    return {"before": before, "after": rerun.serialized(graph), "x": rerun.name_of(graph, x),
            "fetches": {key: rerun.name_of(graph, t) for key, t in fetches.items()}}


def _both(facts):
    seconds, parts = facts["returned"]["seconds"], _parts(facts)
    counts, other = {}, {}
    for warm in (False, True):
        runs, opened = parts.get(f"warm={warm}", ((), 0))
        if opened != 1:
            return False, f"warm={warm}: {opened} sessions opened, expected one fresh session", ""
        counts[warm] = sum(r["ok"] and (tuple(r["fetched"]), tuple(r["fed"])) == SERVED for r in runs)
        other[warm] = sum(r["ok"] for r in runs) - counts[warm]
    if not all(isinstance(s, float) and 0 < s < math.inf for s in seconds.values()):
        return False, f"returned {seconds.get(False)!r} and {seconds.get(True)!r}, expected seconds > 0", ""
    ok = counts[False] == 1 and counts[True] >= 2
    if ok:
        timed = _timed_within(seconds, _windows(facts), parts)
        if timed:
            return False, timed, TIMED_HINT
    # The warmed session ran serve()'s executor only for the request, after runs of another one: warm_up was called
    # and ran something else, which the check on warm_up names. This check then depends on that one, and its hint
    # says so rather than send the student back to a first_request_seconds that may be right.
    after_warm_up = counts[False] == 1 and counts[True] == 1 and other[True] > 0
    return ok, (f"cold session ran serve()'s executor {counts[False]} time(s), the warmed one {counts[True]}; first "
                f"request {seconds[False] * 1e3:.2f} ms cold, {seconds[True] * 1e3:.2f} ms warmed, one of each: "
                f"not compared"), (WARM_UP_FIRST if after_warm_up else "")


# A timer's step: time.time() on Windows moves by about 15.6 ms.
CLOCK_S = 0.016
TIMED_HINT = ("Return the time of the first serve() call itself, measured around that call in the same process: "
              "step 4 says where the timer starts and stops.")


def _timed_within(seconds, windows, parts):
    """Why a returned time cannot be the request's, or "": it must cover the judge's own run of the request and fit
    within the call that returned it, both by the judge's clock."""
    for warm in (False, True):
        runs, _ = parts[f"warm={warm}"]
        request = [r for r in runs if r["ok"] and (tuple(r["fetched"]), tuple(r["fed"])) == SERVED][-1]
        own, window, got = request["seconds"], windows[f"warm={warm}"], seconds[warm]
        if got > window + CLOCK_S:
            return (f"warm={warm}: returned {got * 1e3:,.2f} ms, longer than the whole call took by the checker's "
                    f"clock ({window * 1e3:,.2f} ms): not a time that call measured")
        if got < own - CLOCK_S:
            return (f"warm={warm}: returned {got * 1e3:,.2f} ms, shorter than the checker's own run of the request "
                    f"({own * 1e3:,.2f} ms): the timer missed the request")
    return ""


WARM_UP_FIRST = ("Your warmed session ran warm_up, but serve()'s executor only for the request: this check depends "
                 "on the one that warm_up runs what serve() runs. Fix warm_up first (that check's seen line), then "
                 "check again.")


@hint("The seen line counts the sessions each call opened and the runs of serve()'s executor in each: step 4 says "
      "what one call of first_request_seconds opens, runs, times and returns.")
@judged_by(_both)
@observed(judges_record)
def measures_both_first_requests(mod):
    """first_request_seconds times the first serve() in a fresh session, cold and warmed"""
    data, w = _served_data()
    seconds = {}
    with sessions.judged():
        for warm in (False, True):
            sessions.mark(f"warm={warm}")
            seconds[warm] = mod.first_request_seconds(w, data, warm)
    return {"seconds": seconds}


OUTCOMES = ("differs", "no difference", "cannot tell")
COPY_HINT = ("Run the Try it and copy the COLD_MS and WARM_MS lists it printed, and the outcome its last line gave "
             "them, into JUDGE_SAID.")


# The Try it prints ROUNDS times a side (8): a list far longer is no copy of it, and the rank test's work grows as n x m.
MAX_SAMPLES = 1_000
MAX_MS = 3_600_000.0   # an hour: a first request that took longer, or an infinite or NaN one, is no time measured


def _samples(values):
    """The values as a list of at most MAX_SAMPLES finite times > 0, or None when they are not that."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if not isinstance(values, (list, tuple)) or len(values) > MAX_SAMPLES:
        return None
    ok = all(isinstance(v, numbers.Real) and not isinstance(v, bool) and 0 < v <= MAX_MS for v in values)
    return list(values) if ok else None


def judge_answer(facts):
    """(passed, seen, hint) of answer_is_what_your_run_shows: JUDGE_SAID is the judge's outcome of the samples."""
    cold, warm, judge_said = _samples(facts["cold"]), _samples(facts["warm"]), facts["said"]
    if not cold or not warm:
        shown = [reprlib.repr(list(v) if isinstance(v, tuple) else v) for v in (facts["cold"], facts["warm"])]
        return False, (f"COLD_MS = {shown[0]}, WARM_MS = {shown[1]}: expected two lists of times > 0 in ms, finite, "
                       f"at most {MAX_MS:,.0f} each and {MAX_SAMPLES:,} a side"), ""
    least = fewest(RANK_SUM)
    if min(len(cold), len(warm)) < least:
        # Below this a rank test cannot say "differs" whatever the times: the question could not be answered.
        return False, f"n={len(cold)} and {len(warm)}: a rank test needs {least} a side to be able to say differs", (
            f"Run the Try it with ROUNDS of at least {least}, and copy its lists.")
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
    losses, want = facts["returned"]["losses"], reference_losses(x, y, 6)
    if len(losses) != len(want):
        return False, f"{len(losses)} losses for 6 steps", ""
    fetched = {v for r in facts["runs"] for v in r["scalars"]}
    made = [v for v in losses if v not in fetched]
    if made:
        return False, (f"train() returned {made[0]!r}, which none of its {len(facts['runs'])} session runs fetched"), (
            "Return the losses the session's runs give: the checker makes those runs itself.")
    # Relative: TensorFlow's reductions add in another order than NumPy's.
    err = max(abs(a - b) / abs(b) for a, b in zip(losses, want))
    return err < 1e-6, f"largest relative difference from NumPy {err:.1e} over 6 steps", ""


@hint("Keep the loss and the update the same: only where they are created should change.")
@judged_by(_numpy)
@observed(judges_record)
def matches_numpy(mod):
    """train(x, y, steps) returns the same losses as gradient descent in NumPy"""
    x, y = _training_data()
    with sessions.judged():
        losses, _ = mod.train(x, y, 6)
    return {"losses": [float(v) for v in losses]}


def _no_growth(facts):
    parts = _parts(facts)
    sizes = {}
    for steps in (2, 8):
        runs = [r for r in parts.get(f"steps={steps}", ((), 0))[0] if "ops" in r]
        if not runs:
            return False, f"train() made no run in {steps} steps", ""
        sizes[steps] = max(r["ops"] for r in runs)
    return sizes[2] == sizes[8], f"{sizes[2]} ops after 2 steps, {sizes[8]} after 8", ""


@hint("The graph has more ops after 8 training steps than after 2: count its operations inside the loop, as the "
      "sheet's step 4 does, to find the lines that add them.")
@judged_by(_no_growth)
@observed(judges_record)
def graph_does_not_grow(mod):
    """the graph has as many ops after 8 steps as after 2"""
    x, y = _training_data()
    with sessions.judged():
        for steps in (2, 8):
            sessions.mark(f"steps={steps}")
            mod.train(x, y, steps)
    return {}


def _one_each(facts):
    opened, graphs = facts["sessions"], facts["graphs"]
    ok = opened == 1 and graphs == 1 and len({r["session"] for r in facts["runs"]}) == 1
    return ok, f"{opened} sessions on {graphs} graphs for 4 steps", ""


@hint("The seen line counts the sessions your steps ran in: step 5 asks for one session on one graph for every "
      "step.")
@judged_by(_one_each)
@observed(judges_record)
def one_graph_one_session(mod):
    """every step runs in the same session and graph"""
    x, y = _training_data()
    with sessions.judged():
        mod.train(x, y, 4)
    return {}


def _finalized(facts):
    runs, finalized = facts["runs"], facts["returned"]["finalized"]
    # The first run may be the initializer, made before or after finalize(); every step after it must be guarded.
    late = sum(not r["finalized"] for r in runs[1:])
    # What the judge saw itself: a graph said finalized gains no op afterwards.
    grown = any(a["finalized"] and "ops" in a and "ops" in b and b["ops"] > a["ops"] for a, b in zip(runs, runs[1:]))
    ok = finalized and bool(runs) and late == 0 and not grown
    return ok, f"{len(runs)} runs, {late} after the first on a graph not yet finalized; finalized at the end: " \
               f"{finalized}" + ("; ops were added after it was finalized" if grown else ""), ""


@hint("The seen line counts the training runs made on a graph not yet finalized: step 6 says when to finalize "
      "it.")
@judged_by(_finalized)
@observed(judges_record)
def finalized_before_training(mod):
    """the graph is finalized before the training steps run"""
    x, y = _training_data()
    with sessions.judged():
        _, graph = mod.train(x, y, 3)
    return {"finalized": bool(graph.finalized)}


LAB6 = (matches_numpy, graph_does_not_grow, one_graph_one_session, finalized_before_training)


CHECKS = {4: LAB4, 5: LAB5, 6: LAB6}
