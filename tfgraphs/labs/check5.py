"""Lab 5 checks: warm_up builds the very executor serve() uses, and first_request_seconds shows what it saves."""

import numpy as np

from tfgraphs.labs.marks import hint, judged_by
from tfgraphs.labs.sessions import RecordingSession, describe, recording, signature
from tfgraphs.spec import network

BATCH = 8


def _data():
    x, w = network.make_data(BATCH, "float64", 0)
    return x, w


def _served(graph, x, fetches):
    """The signature of the run serve() makes."""
    return signature(graph, fetches, {x: None})


def _warmed(facts):
    ran = "; ".join(facts["warmed"]) or "nothing"
    return facts["served"] in facts["warmed"], f"warm_up ran {ran}; serve() runs {facts['served']}", ""


@hint("serve() fetches the whole dict, scores and features, fed X: warm up with that same fetch list and feed "
      "(a batch of one zero image is enough), not with only part of it.")
@judged_by(_warmed)
def warms_what_is_served(mod):
    """warm_up runs the same fetches and feeds as serve()"""
    data, w = _data()
    graph, x, fetches = mod.build_model(w)
    with RecordingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        warmed = sess.signatures
    # describe() writes a signature's names sorted: equal texts are equal signatures.
    return {"warmed": [describe(s) for s in dict.fromkeys(warmed)], "served": describe(_served(graph, x, fetches))}


def _right(facts):
    data, w = _data()
    want = network.reference_forward(data, w)
    err = max(float(np.max(np.abs(facts["scores"] - want))),
              float(np.max(np.abs(facts["features"] - want.mean(axis=(1, 2))))))
    return err < 1e-9 and facts["added"] == 0, f"max abs error {err:.1e}; warm_up added {facts['added']} ops", ""


@hint("warm_up must only run the model: no variables to change, no ops to add.")
@judged_by(_right)
def answers_stay_right(mod):
    """after warm_up, serve() still matches the NumPy reference"""
    data, w = _data()
    graph, x, fetches = mod.build_model(w)
    nodes = len(graph.get_operations())
    with RecordingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        got = mod.serve(sess, x, fetches, data)
    return {"scores": np.asarray(got["scores"]), "features": np.asarray(got["features"]),
            "added": len(graph.get_operations()) - nodes}


def _both(facts):
    seconds, sessions, counts = facts["seconds"], facts["sessions"], facts["counts"]
    for warm in (False, True):
        if sessions.get(warm) != 1:
            return False, f"warm={warm}: {sessions.get(warm)} sessions opened, expected one fresh session", ""
    if not all(isinstance(s, float) and s > 0 for s in seconds.values()):
        return False, f"returned {seconds[False]!r} and {seconds[True]!r}, expected seconds > 0", ""
    ok = counts[False] == 1 and counts[True] >= 2
    return ok, (f"cold session ran serve()'s executor {counts[False]} time(s), the warmed one {counts[True]}; first "
                f"request {seconds[False] * 1e3:.2f} ms cold, {seconds[True] * 1e3:.2f} ms warmed"), ""


@hint("Open a new tf.compat.v1.Session for each call, call warm_up() in it only when warm is True, then time one "
      "serve() alone with time.perf_counter() and return the seconds.")
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


CHECKS = (warms_what_is_served, answers_stay_right, measures_both_first_requests)
