"""The run-time pitfalls: which sess.run calls build a new executor, and a loop that grows its graph."""

import statistics
import time

import numpy as np

from tfgraphs import machine
from tfgraphs.spec import network
from tfgraphs.spec.pitfalls import DTYPE, EXECUTOR_CASES, GROWTH_CASES, REPEATED_CASES
from tfgraphs.spec import protocol


def check_output(x, w, y):
    """Raise unless y matches the NumPy reference of the seed network."""
    err = network.max_abs_error(x, w, y)
    if not err <= network.TOLERANCE[DTYPE]:
        raise ValueError(f"output differs from the NumPy reference by {err:.3g}")


def reference_mean(x, w, chunk=1000):
    """Mean of the reference network's output over the whole batch, computed in chunks to bound memory."""
    total = sum(float(network.reference_forward(x[i:i + chunk], w).sum()) for i in range(0, len(x), chunk))
    return total / (len(x) * int(np.prod(network.output_shape(1))))


def timed_case(name, call, repeats=1):
    """({"case", "seconds"[, "runs_s"]}, the last value) for call() timed `repeats` times, each alone."""
    protocol.phase(name)
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - t0)
    case = {"case": name, "seconds": statistics.median(times)}
    if repeats > 1:
        case["runs_s"] = times
    return case, value


def real_callable(tf, sess, fetch, feeds):
    """A callable of TensorFlow's own (client/session.py's _make_callable_from_options), feeding `feeds` in order."""
    from tensorflow.core.protobuf import config_pb2

    # make_callable, with or without a feed_list, returns a function that runs the session as sess.run does.
    options = config_pb2.CallableOptions(feed=[t.name for t in feeds], fetch=[fetch.name])
    return sess._make_callable_from_options(options)


def ran_graph(tf, sess, built, fetch):
    """One more, untimed run of fetch: what its partition graphs computed (worker.inside.ran_graph)."""
    from tfgraphs.worker import inside

    meta = tf.compat.v1.RunMetadata()
    sess.run(fetch, feed_dict=built.feed, options=tf.compat.v1.RunOptions(output_partition_graphs=True),
             run_metadata=meta)
    return inside.ran_graph(built.graph.as_graph_def(), meta.partition_graphs)


def executor_cache(tf, task, x, w):
    """Every EXECUTOR_CASES run in one session, in order: which runs pay for a new executor."""
    from tfgraphs.worker.graphs import build

    built = build(task.variant, x, w)
    pool, conv = built.graph.get_tensor_by_name("pool:0"), built.graph.get_tensor_by_name("conv:0")
    sess = tf.compat.v1.Session(graph=built.graph)
    out, feed, args = built.output, built.feed, list(built.feed.values())
    made = {}
    steps = {
        "first": lambda: sess.run(out, feed),
        "repeat": lambda: sess.run(out, feed),
        "new fetches": lambda: sess.run([out, pool], feed),
        "new fetches repeat": lambda: sess.run([out, pool], feed),
        "reordered fetches": lambda: sess.run([pool, out], feed),
        # Feeding the pool's own value: only relu runs, but the feed set is new.
        "new feeds": lambda: sess.run(out, {**feed, pool: made["pool"]}),
        "make_callable": lambda: sess.make_callable(conv, feed_list=list(feed)),
        "callable first call": lambda: made["callable"](*args),
        "callable repeat": lambda: made["callable"](*args),
        "real callable made": lambda: real_callable(tf, sess, conv, list(feed)),
        "real callable first call": lambda: made["real"](*args),
        "real callable repeat": lambda: made["real"](*args),
    }
    assert tuple(steps) == EXECUTOR_CASES, "the cases run in the order spec.pitfalls names them"
    cases = []
    for name, call in steps.items():
        case, value = timed_case(name, call, task.steps if name in REPEATED_CASES else 1)
        cases.append(case)
        if name == "first":
            check_output(x, w, value)
        elif name == "new fetches":
            made["pool"] = value[1]
        elif name == "make_callable":
            made["callable"] = value
        elif name == "real callable made":
            made["real"] = value
    sess.close()
    return {"cases": cases}


def growth_loop(tf, task, x, w, leaky):
    """One growth loop's graph and session, the op created in every step (leaky) or once before: (step, finish).

    step() runs and records one step; finish() closes the session and returns (case, graph, make_op)."""
    from tfgraphs.worker.graphs import build

    built = build(task.variant, x, w)
    graph = built.graph
    sess = tf.compat.v1.Session(graph=graph)

    def make_op():
        """The op a leaky training loop creates again on every step."""
        return tf.reduce_mean(built.output)

    with graph.as_default():
        fixed = None if leaky else make_op()
    step_s, extend_s, nodes, rss, value = [], [], [], [], []

    def step():
        before = machine.rss_bytes()
        with graph.as_default():
            t0 = time.perf_counter()
            op = make_op() if leaky else fixed
            # sess.run would Extend the session itself; done first, it is timed alone (client/session.py).
            t1 = time.perf_counter()
            sess._extend_graph()
            extend_s.append(time.perf_counter() - t1)
            value[:] = [sess.run(op, built.feed)]
            step_s.append(time.perf_counter() - t0)
        nodes.append(len(graph.get_operations()))
        # The other loop's steps run between this one's: its memory counts only what its own steps added.
        added = machine.rss_bytes() - before
        rss.append((rss[-1] if rss else before) + added)

    def finish():
        # Whether the fixed loop's op still computes the network, or was folded to a constant: untimed, after it.
        with graph.as_default():
            ran = None if leaky else ran_graph(tf, sess, built, fixed)
            graph_bytes = graph.as_graph_def().ByteSize()
        sess.close()
        if not abs(value[0] - reference_mean(x, w)) <= network.TOLERANCE[DTYPE]:
            raise ValueError(f"the loop's mean {value[0]!r} differs from the NumPy reference")
        case = {"case": GROWTH_CASES[0] if leaky else GROWTH_CASES[1], "step_s": step_s, "extend_s": extend_s,
                "nodes": nodes, "rss_bytes": rss, "graph_bytes": graph_bytes}
        if ran:
            case.update(computes=ran["partition_computes"], replaced_by_const=ran["replaced_by_const"])
        return case, graph, make_op

    return step, finish


def graph_growth(tf, task, x, w):
    """The leaky loop and the fixed loop, each in a fresh graph, taking turns step by step (so that step i of each is
    a pair); then the leaky step once more, finalized."""
    loops = [growth_loop(tf, task, x, w, leaky=True), growth_loop(tf, task, x, w, leaky=False)]
    for i in range(task.steps):
        protocol.phase(f"{GROWTH_CASES[0]} and {GROWTH_CASES[1]}: step {i + 1}/{task.steps}")
        for step, _ in loops:
            step()
    (leaky, graph, make_op), (fixed, _, _) = (finish() for _, finish in loops)
    protocol.phase("finalize")
    graph.finalize()
    try:
        with graph.as_default():
            make_op()
        error = None   # the finalized graph accepted a new op: reported as no error
    except RuntimeError as exc:
        error = str(exc)
    return {"cases": [leaky, fixed], "finalize_error": error}
