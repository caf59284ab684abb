"""The pitfalls lessons, each run on one variant in a fresh process: `python -m tfgraphs.worker.pitfalls --lesson L`
prints one JSON document: the lesson's cases, named as in spec.pitfalls, in the order they ran. Progress goes to
stderr as `@phase NAME` lines.
"""

import glob
import os
import statistics
import sys
import tempfile
import time

import numpy as np

from tfgraphs import machine, processes
from tfgraphs.graphdef import consts
from tfgraphs.spec import network, tflog
from tfgraphs.spec.pitfalls import (ALIGNMENT_CASES, CHECKPOINT, DEFAULT_CASES, DTYPE, EXECUTOR_CASES, FOLDING_CASES,
                                    FROZEN, GRAPH, GROWTH_CASES, LEAK_CASES, LEAKED_SETS, LESSONS, META,
                                    PRUNING_CASES, RAISED_FOLD_LIMIT, REPEATED_CASES, PitfallsTask)
from tfgraphs.tfimport import import_tensorflow

ALIGN = 64   # bytes; TensorFlow's CPU allocator aligns its own buffers so


def measure(task):
    """Run the task's lesson on its variant."""
    processes.phase("import tensorflow")
    tf = import_tensorflow()

    processes.phase("data")
    x, w = network.make_data(task.batch, DTYPE, task.seed)
    result = runs_of_lessons()[task.lesson](tf, task, x, w)
    return {"tf_version": tf.__version__, "devices": [d.name for d in tf.config.list_physical_devices()], **result}


def runs_of_lessons():
    """Each lesson's run, by its name in spec.pitfalls (each imports TensorFlow's graphs module when it runs)."""
    return {"executor-cache": executor_cache, "graph-growth": graph_growth,
            "saved-copies": saved_copies, "placeholder-default": placeholder_default,
            "folding": folding, "pruning": pruning, "feed-alignment": feed_alignment,
            "executor-leak": executor_leak}


# What the lessons share

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
    processes.phase(name)
    times, value = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = call()
        times.append(time.perf_counter() - t0)
    case = {"case": name, "seconds": statistics.median(times)}
    if repeats > 1:
        case["runs_s"] = times
    return case, value


# The run-time lessons: which sess.run calls build a new executor, and a loop that grows its graph

def real_callable(tf, sess, fetch, feeds):
    """A callable of TensorFlow's own (client/session.py's _make_callable_from_options), feeding `feeds` in order."""
    from tensorflow.core.protobuf import config_pb2

    # make_callable, with or without a feed_list, returns a function that runs the session as sess.run does.
    options = config_pb2.CallableOptions(feed=[t.name for t in feeds], fetch=[fetch.name])
    return sess._make_callable_from_options(options)


def executor_cache(tf, task, x, w):
    """Every EXECUTOR_CASES run in one session, in order: which runs pay for a new executor."""
    from tfgraphs.worker import graphs

    built = graphs.build(task.variant, x, w)
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
    from tfgraphs.worker import graphs

    built = graphs.build(task.variant, x, w)
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
            ran = None if leaky else graphs.partition_run(sess, built, fixed)
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
        processes.phase(f"{GROWTH_CASES[0]} and {GROWTH_CASES[1]}: step {i + 1}/{task.steps}")
        for step, _ in loops:
            step()
    (leaky, graph, make_op), (fixed, _, _) = (finish() for _, finish in loops)
    processes.phase("finalize")
    graph.finalize()
    try:
        with graph.as_default():
            make_op()
        error = None   # the finalized graph accepted a new op: reported as no error
    except RuntimeError as exc:
        error = str(exc)
    return {"cases": [leaky, fixed], "finalize_error": error}


# Where X ends up besides the GraphDef: Saver's .meta, a checkpoint, a frozen graph, a placeholder's default

def holds(data, x):
    """True when the raw bytes of X appear, in one piece, in data."""
    return x.tobytes() in data


def _file_bytes(paths):
    """The bytes of the files at paths, in sorted order, as one string."""
    data = b""
    for path in sorted(paths):
        with open(path, "rb") as f:
            data += f.read()
    return data


def artifact(name, data, x, **extra):
    """One saved artifact's case: its bytes and whether it holds X."""
    return {"case": name, "bytes": len(data), "holds_data": holds(data, x), **extra}


def export_meta(tf, graph, path):
    """The bytes of the .meta that tf.compat.v1.train.Saver exports for graph."""
    with graph.as_default():
        # allow_empty: the constant variant has no variable to save, yet its MetaGraph can be exported.
        tf.compat.v1.train.Saver(allow_empty=True).export_meta_graph(path)
    return _file_bytes([path])


def saved_copies(tf, task, x, w):
    """Each artifact spec.pitfalls names for the variant, written to a temporary folder and searched for X."""
    from tfgraphs.worker import graphs

    names = LESSONS[task.lesson].cases[task.variant]
    built = graphs.build(task.variant, x, w)
    cases = []
    with tempfile.TemporaryDirectory() as folder:
        processes.phase(GRAPH)
        cases.append(artifact(GRAPH, built.graph.as_graph_def().SerializeToString(), x))
        processes.phase(META)
        meta = export_meta(tf, built.graph, os.path.join(folder, "model.meta"))
        probe = {}
        if task.batch > 1:
            # A second, one-example export gives the bytes per example without building anything larger.
            small = export_meta(tf, graphs.build(task.variant, x[:1], w).graph, os.path.join(folder, "probe.meta"))
            probe = {"probe_batch": 1, "probe_bytes": len(small)}
        cases.append(artifact(META, meta, x, **probe))
        if CHECKPOINT in names or FROZEN in names:
            cases += _variable_artifacts(tf, built, names, x, w, os.path.join(folder, "model"))
    return {"cases": cases}


def _variable_artifacts(tf, built, names, x, w, prefix):
    """The checkpoint Saver writes and the graph frozen from the session, as names asks."""
    v1, cases = tf.compat.v1, []
    with built.graph.as_default():
        saver = v1.train.Saver()
    with v1.Session(graph=built.graph) as sess:
        sess.run(built.init, built.init_feed)
        check_output(x, w, sess.run(built.output))
        if CHECKPOINT in names:
            processes.phase(CHECKPOINT)
            saver.save(sess, prefix, write_meta_graph=False)
            cases.append(artifact(CHECKPOINT, _file_bytes(glob.glob(prefix + ".*")), x))
        if FROZEN in names:
            processes.phase(FROZEN)
            frozen = v1.graph_util.convert_variables_to_constants(sess, built.graph.as_graph_def(),
                                                                  [built.output.op.name])
            cases.append(artifact(FROZEN, frozen.SerializeToString(), x))
    return cases


def placeholder_default(tf, task, x, w):
    """A plain placeholder, then placeholder_with_default(X) not fed and fed: graph and Const bytes, first run."""
    from tfgraphs.worker import graphs

    v1, cases = tf.compat.v1, []
    for name in DEFAULT_CASES:
        processes.phase(name)
        graph = tf.Graph()
        with graph.as_default():
            if name == DEFAULT_CASES[0]:
                xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
            else:
                xp = v1.placeholder_with_default(x, [None, *x.shape[1:]], name="X")
            out = graphs.seed_network(xp, tf.constant(w, name="W"))
        feed = {} if name == DEFAULT_CASES[1] else {xp: x}
        with v1.Session(graph=graph) as sess:
            t0 = time.perf_counter()
            y = sess.run(out, feed)
            seconds = time.perf_counter() - t0
            # After the timed run: the graph that ran, which says whether the unfed default was folded.
            meta = v1.RunMetadata()
            sess.run(out, feed, options=v1.RunOptions(output_partition_graphs=True), run_metadata=meta)
        check_output(x, w, y)
        graph_def = graph.as_graph_def()
        ran = graphs.ran_graph(graph_def, meta.partition_graphs)
        cases.append({"case": name, "graph_bytes": graph_def.ByteSize(), "const_bytes": consts.const_bytes(graph_def),
                      "seconds": seconds, "computes": ran["partition_computes"],
                      "replaced_by_const": ran["replaced_by_const"]})
    return {"cases": cases}


# The folding lesson: which graphs the constant folders replace, read from the graphs that ran and their own log

def _folding_graph(case, x, w):
    """The case's network in a fresh graph: X embedded, behind a one-shot iterator, or fed."""
    from tfgraphs.worker import graphs

    variant = {"stateful input": "dataset-embedded", "fed input": "placeholder"}.get(case, "constant")
    return graphs.build(variant, x, w, returns="sum" if case == "scalar fetch" else "output")


def _folding_config(tf, case):
    """A ConfigProto for the case: the classic folder's limit raised for "larger folder limit"."""
    config = tf.compat.v1.ConfigProto()
    if case == "larger folder limit":
        # The classic folder's own limit on a replaced tensor; Grappler's folder keeps its own.
        config.graph_options.optimizer_options.max_folded_constant_in_bytes = RAISED_FOLD_LIMIT
    return config


def folding(tf, task, x, w):
    """Each case in its own graph and session: its first and second run, the graph that ran, the folders' log."""
    from tfgraphs.worker import graphs

    cases = []
    for case in FOLDING_CASES:
        processes.phase(case)
        built = _folding_graph(case, x, w)
        with tf.compat.v1.Session(graph=built.graph, config=_folding_config(tf, case)) as sess:
            with graphs.captured_stderr() as log:
                t0 = time.perf_counter()
                first = sess.run(built.output, built.feed)
                first_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            sess.run(built.output, built.feed)
            later_s = time.perf_counter() - t0
            # After the timed runs: the partition graphs of the executor both runs used.
            meta = tf.compat.v1.RunMetadata()
            sess.run(built.output, built.feed, options=tf.compat.v1.RunOptions(output_partition_graphs=True),
                     run_metadata=meta)
        check = network.sum_error if case == "scalar fetch" else network.max_abs_error
        if not check(x, w, first) <= network.TOLERANCE["float64"]:
            raise ValueError(f"{case}: the output differs from the NumPy reference")
        ran = graphs.ran_graph(built.graph.as_graph_def(), meta.partition_graphs)
        cases.append({"case": case, "seconds": first_s, "later_s": later_s, "computes": ran["partition_computes"],
                      "replaced_by_const": ran["replaced_by_const"], "stateful": ran["partition_stateful"],
                      "fed": ran["partition_ops"].get("_Arg", 0), "folder_log": tflog.stages(log),
                      "fetched_bytes": int(getattr(first, "nbytes", 0))})
    return {"cases": cases}


# The pruning lesson: a run executes only the fetches' fan-in, counted from the step stats of traced runs

def pruning(tf, task, x, w):
    """relu fetched as a tensor and as an op, then an assign_add outside its fan-in, each run traced once."""
    from tfgraphs.worker import graphs

    v1 = tf.compat.v1
    built = graphs.build(task.variant, x, w)
    with built.graph.as_default():
        counter = v1.Variable(0, name="counter", dtype=tf.int64)
        bump = v1.assign_add(counter, 1, name="bump")
        init = v1.variables_initializer([counter])
    fetches = {PRUNING_CASES[0]: built.output, PRUNING_CASES[1]: built.output.op, PRUNING_CASES[2]: bump}
    cases = []
    with v1.Session(graph=built.graph) as sess:
        sess.run(init)
        options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
        for case, fetch in fetches.items():
            processes.phase(case)
            meta = v1.RunMetadata()
            value = sess.run(fetch, feed_dict=built.feed, options=options, run_metadata=meta)
            if case == PRUNING_CASES[0]:
                check_output(x, w, value)
            ran = sorted({op_type for op_type, _ in graphs.op_times(meta.step_stats).values()})
            cases.append({"case": case, "kernels": ran, "returned_none": value is None,
                          "counter_after": int(sess.run(counter))})
    return {"cases": cases}


# The feed-alignment lesson: the same X fed from a 64-byte-aligned buffer and from one 8 bytes off it

def at_offset(x, offset):
    """A copy of x whose data starts `offset` bytes past a 64-byte boundary."""
    raw = np.empty(x.nbytes + 2 * ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGN + offset
    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def feed_alignment(tf, task, x, w):
    """tf.size(X) fed each copy --steps times, the two copies in turns (aligned, unaligned, aligned, ...) after one
    untimed run of each, so that the i-th runs of the two are a pair; the addresses are recorded."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
        # tf.size needs no data, so what a run costs beyond the executor is getting the feed in.
        size = tf.size(xp, out_type=tf.int64)
    fed = [at_offset(x, offset) for offset in (0, 8)]
    runs = [[], []]
    with v1.Session(graph=graph) as sess:
        for buffer in fed:
            assert sess.run(size, {xp: buffer}) == x.size, "tf.size disagrees with NumPy"
        processes.phase(" and ".join(ALIGNMENT_CASES))
        # In turns, not one block after the other: a change of load during the lesson falls on both alike.
        for _ in range(task.steps):
            for times, buffer in zip(runs, fed):
                t0 = time.perf_counter()
                sess.run(size, {xp: buffer})
                times.append(time.perf_counter() - t0)
    cases = []
    for case, buffer, times in zip(ALIGNMENT_CASES, fed, runs):
        # What one copy of these bytes costs here, for the reader to set beside the difference.
        copied, _ = timed_case("copy", lambda: np.array(buffer, copy=True), 3)
        cases.append({"case": case, "seconds": statistics.median(times), "runs_s": times,
                      "address_mod_64": buffer.ctypes.data % ALIGN, "copy_s": copied["seconds"]})
    return {"cases": cases}


# The executor-leak lesson: every new fetch list gets an executor the session keeps, and what each one holds

def executor_leak(tf, task, x, w):
    """Run every set of LEAKED_SETS as targets, each a new signature; then the first set again."""
    from tfgraphs.worker import graphs

    built = graphs.build(task.variant, x, w)
    # Ops as targets: nothing is fetched back, so what stays resident is what the session keeps, not the result.
    signatures = [[built.graph.get_operation_by_name(name) for name in names] for names in LEAKED_SETS]
    cases = []
    with tf.compat.v1.Session(graph=built.graph) as sess:
        before = machine.rss_bytes()
        for name, combo in zip(LEAK_CASES, signatures + [signatures[0]]):
            processes.phase(name)
            t0 = time.perf_counter()
            sess.run(combo, feed_dict=built.feed)
            seconds = time.perf_counter() - t0
            cases.append({"case": name, "seconds": seconds, "rss_bytes": [before, machine.rss_bytes()]})
            before = cases[-1]["rss_bytes"][1]
    return {"cases": cases}


if __name__ == "__main__":
    sys.exit(processes.main(PitfallsTask, measure))
