"""Lab 5 checks: warm_up builds the very executor serve() uses, and first_request_seconds shows what it saves."""

import numpy as np

from tfgraphs.labs.checking import hint
from tfgraphs.labs.sessions import RecordingSession, describe, recording, signature
from tfgraphs.spec import network

BATCH = 8


def _data():
    x, w = network.make_data(BATCH, "float64", 0)
    return x, w


def _served(graph, x, fetches):
    """The signature of the run serve() makes."""
    return signature(graph, fetches, {x: None})


@hint("serve() fetches the whole dict, scores and features, fed X: warm up with that same fetch list and feed "
      "(a batch of one zero image is enough), not with only part of it.")
def warms_what_is_served(mod):
    """warm_up runs the same fetches and feeds as serve()"""
    data, w = _data()
    graph, x, fetches = mod.build_model(w)
    with RecordingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        warmed = sess.signatures
    want = _served(graph, x, fetches)
    ok = want in warmed
    ran = "; ".join(describe(s) for s in dict.fromkeys(warmed)) or "nothing"
    return ok, f"warm_up ran {ran}; serve() runs {describe(want)}", ""


@hint("warm_up must only run the model: no variables to change, no ops to add.")
def answers_stay_right(mod):
    """after warm_up, serve() still matches the NumPy reference"""
    data, w = _data()
    graph, x, fetches = mod.build_model(w)
    nodes = len(graph.get_operations())
    with RecordingSession(graph=graph) as sess:
        mod.warm_up(sess, x, fetches)
        got = mod.serve(sess, x, fetches, data)
    want = network.reference_forward(data, w)
    err = max(float(np.max(np.abs(got["scores"] - want))),
              float(np.max(np.abs(got["features"] - want.mean(axis=(1, 2))))))
    added = len(graph.get_operations()) - nodes
    return err < 1e-9 and added == 0, f"max abs error {err:.1e}; warm_up added {added} ops", ""


@hint("Open a new tf.compat.v1.Session for each call, call warm_up() in it only when warm is True, then time one "
      "serve() alone with time.perf_counter() and return the seconds.")
def measures_both_first_requests(mod):
    """first_request_seconds times the first serve() in a fresh session, cold and warmed"""
    data, w = _data()
    seconds, counts = {}, {}
    for warm in (False, True):
        with recording() as created:
            seconds[warm] = mod.first_request_seconds(w, data, warm)
        if len(created) != 1:
            return False, f"warm={warm}: {len(created)} sessions opened, expected one fresh session", ""
        graph = created[0].graph
        x = graph.get_tensor_by_name("X:0")
        fetches = {"scores": graph.get_tensor_by_name("scores:0"), "features": graph.get_tensor_by_name("features:0")}
        counts[warm] = created[0].signatures.count(_served(graph, x, fetches))
    if not all(isinstance(s, float) and s > 0 for s in seconds.values()):
        return False, f"returned {seconds[False]!r} and {seconds[True]!r}, expected seconds > 0", ""
    ok = counts[False] == 1 and counts[True] >= 2
    return ok, (f"cold session ran serve()'s executor {counts[False]} time(s), the warmed one {counts[True]}; first "
                f"request {seconds[False] * 1e3:.2f} ms cold, {seconds[True] * 1e3:.2f} ms warmed"), ""


CHECKS = (warms_what_is_served, answers_stay_right, measures_both_first_requests)
