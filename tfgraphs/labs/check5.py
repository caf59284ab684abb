"""Lab 5 checks: warm_up builds the very executor serve() uses, first_request_seconds times it, and the answer to
question 1 is what the judge says of the student's own samples."""

import numbers

import numpy as np
import tensorflow as tf

from tfgraphs.labs import rerun
from tfgraphs.labs.marks import hint, judged_by
from tfgraphs.records.judge import FEWEST, RANK_SUM, judge
from tfgraphs.labs.sessions import RecordingSession, TracingSession, recording, signature
from tfgraphs.spec import network

BATCH = 8


def _data():
    x, w = network.make_data(BATCH, "float64", 0)
    return x, w


def _served(graph, x, fetches):
    """The signature of the run serve() makes."""
    return signature(graph, fetches, {x: None})


def _executors(runs):
    """'fetch [..] fed [..]' of each distinct executor among runs' RunMetadata, as TensorFlow's partition graphs
    name them."""
    return [f"fetch [{', '.join(sorted(got))}] fed [{', '.join(sorted(fed))}]"
            for fed, got in dict.fromkeys(map(rerun.executor, runs))]


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
    data, w = _data()
    graph, x, fetches = mod.build_model(w)
    # Each run's RunMetadata holds the partition graphs of the executor it ran: TensorFlow's own record of it.
    with TracingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        warmed = list(sess.metadata)
        mod.serve(sess, x, fetches, data)
    return {"warmed": warmed, "served": sess.metadata[len(warmed):]}


def _right(facts):
    # Another batch than the one the checker's body had: the judge runs the graph warm_up left on its own data.
    data, w = network.make_data(BATCH, "float64", 1)[0], _data()[1]
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
    data, w = _data()
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
    data, w = _data()
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


def _said(facts):
    cold, warm, said = _samples(facts["cold"]), _samples(facts["warm"]), facts["said"]
    if not cold or not warm:
        shown = [list(v) if isinstance(v, tuple) else v for v in (facts["cold"], facts["warm"])]
        return False, f"COLD_MS = {shown[0]!r}, WARM_MS = {shown[1]!r}: expected two lists of times > 0", ""
    fewest = FEWEST[RANK_SUM]
    if min(len(cold), len(warm)) < fewest:
        # Below this a rank test cannot say "differs" whatever the times: the question could not be answered.
        return False, f"n={len(cold)} and {len(warm)}: a rank test needs {fewest} a side to be able to say differs", (
            f"Run the Try it with ROUNDS of at least {fewest}, and copy its lists.")
    verdict = judge(cold, warm)
    answer = said.strip().lower() if isinstance(said, str) else ""
    given = next((o for o in OUTCOMES if answer.startswith(o)), None)
    seen = f"the judge says of your samples: {verdict.says()}; JUDGE_SAID is {said!r}"
    if given is None:
        return False, seen, f"JUDGE_SAID is one of {', '.join(map(repr, OUTCOMES))}: the outcome the judge gave."
    ok = given == verdict.outcome
    return ok, seen, "" if ok else ("Answer with what the judge says of your own samples, not what you expected: "
                                    "'no difference' and 'cannot tell' are answers too.")


@hint(COPY_HINT)
@judged_by(_said)
def answer_is_what_your_run_shows(mod):
    """JUDGE_SAID is what the judge says of your COLD_MS against your WARM_MS"""
    return {"cold": getattr(mod, "COLD_MS", None), "warm": getattr(mod, "WARM_MS", None),
            "said": getattr(mod, "JUDGE_SAID", None)}


CHECKS = (warms_what_is_served, answers_stay_right, measures_both_first_requests, answer_is_what_your_run_shows)
