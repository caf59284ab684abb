"""One shape-churn mode in a fresh process: `python -m tfgraphs.worker.shapes --mode M ...` prints one JSON document.

Every length from --start to --start + --count - 1 is run once per pass, each call timed alone. The passes are
interleaved (see schedule), so a drift of the machine's load touches pass 1 and pass 2 of a length alike.
Progress goes to stderr as `@phase NAME` lines; stdout is reserved for the result.
"""

import os
import sys
import time

import numpy as np

from tfgraphs import processes
from tfgraphs.spec.shapes import DTYPE, SWITCHES, ShapesTask
from tfgraphs.tfimport import import_tensorflow

CHECK_POSITIONS = 257   # output positions checked against NumPy, first and last included
TOLERANCE = 1e-4        # largest |TF - NumPy| / max |NumPy| accepted in DTYPE
CONTROL_SIZE = 1 << 18  # the control: sorting this many float32 values, the same work in every worker


def make_data(task):
    """X [batch, longest length, channels] (each length is a prefix of it) and W [kernel, channels, filters]."""
    rng = np.random.default_rng(task.seed)
    longest = task.start + task.count - 1
    x = rng.standard_normal((task.batch, longest, task.channels), dtype=DTYPE)
    w = rng.standard_normal((task.kernel, task.channels, task.filters), dtype=DTYPE)
    return x, w / np.dtype(DTYPE).type(np.sqrt(task.kernel * task.channels))


def _tf_function(tf, body, mode, channels):
    """A tf.function of body, traced the way the mode says."""
    if mode == "function":
        return tf.function(body)
    if mode == "function-relaxed":
        return tf.function(body, reduce_retracing=True)
    return tf.function(body, input_signature=[tf.TensorSpec([None, None, channels], tf.float32)])


def _graph(tf, w, channels):
    """A tf.compat.v1 graph with a [None, None, C] placeholder, built in the first call, rebuilt only for misfits."""
    built = []   # (session, x, y, conv name) for each graph built; len(built) is the mode's trace count

    def graph_for(shape):
        if built and built[-1][1].shape.is_compatible_with(shape):
            return built[-1]
        graph = tf.Graph()
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [None, None, channels], name="x")
            y = tf.nn.conv1d(x, tf.constant(w), stride=1, padding="VALID")
        graph.finalize()   # a call that tried to add an op would raise instead of growing the graph
        conv = next(op.name for op in graph.get_operations() if op.type == "Conv2D")
        built.append((tf.compat.v1.Session(graph=graph), x, y, conv))
        return built[-1]

    def call(a):
        sess, x, y, _ = graph_for(a.shape)
        return sess.run(y, feed_dict={x: a})

    def device():
        """Where the convolution ran in the last graph built, from one traced run at a tiny shape."""
        if not built:
            return None
        sess, x, y, conv = built[-1]
        options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
        meta = tf.compat.v1.RunMetadata()
        sess.run(y, feed_dict={x: np.zeros((1, w.shape[0], channels), np.float32)}, options=options, run_metadata=meta)
        return next((d.device for d in meta.step_stats.dev_stats if any(n.node_name == conv for n in d.node_stats)),
                    None)

    return call, lambda: len(built), device


def build(tf, mode, w, task):
    """(call(x) -> ndarray, traces() -> int or None, device() -> str or None) for the mode."""
    # tf.function traces and graph mode's graphs are built inside the calls that need them: traces() counts what the
    # calls actually built, and the building lands in the timed call that paid for it, as it would in use.
    if mode == "graph":
        return _graph(tf, w, task.channels)
    out = {}

    def run(f):
        def call(a):
            y = f(a)
            out["device"] = y.device
            return y.numpy()
        return call

    if mode == "eager":
        return run(lambda a: tf.nn.conv1d(a, w, stride=1, padding="VALID")), lambda: None, lambda: out.get("device")
    if mode == "keras":
        layer = tf.keras.layers.Conv1D(task.filters, task.kernel)
        layer.build((None, None, task.channels))
        layer.set_weights([w, np.zeros(task.filters, np.float32)])
        return run(layer), lambda: None, lambda: out.get("device")
    if mode == "blocked":
        from tfgraphs.worker.graphs import blocked_conv1d

        f = _tf_function(tf, lambda a: blocked_conv1d(a, w, task.block), "function-signature", task.channels)
    else:
        f = _tf_function(tf, lambda a: tf.nn.conv1d(a, w, stride=1, padding="VALID"), mode, task.channels)
    return run(f), f.experimental_get_tracing_count, lambda: out.get("device")


def max_rel_error(x, w, y):
    """max |y - NumPy| / max |NumPy| over every example and CHECK_POSITIONS output positions."""
    kernel = w.shape[0]
    positions = np.unique(np.linspace(0, y.shape[1] - 1, CHECK_POSITIONS).astype(int))
    windows = x[:, positions[:, None] + np.arange(kernel)].astype(np.float64)   # [N, P, kernel, C]
    ref = np.einsum("npkc,kcf->npf", windows, w.astype(np.float64))
    return float(np.max(np.abs(y[:, positions] - ref)) / np.max(np.abs(ref)))


def schedule(count, passes):
    """(pass, length index) in the order they run: pass 1 of length k, then pass 2 of length k - 1, pass 3 of k - 2...

    Run pass by pass, pass 1 and pass 2 of a length would sit a whole pass apart, and a change of the machine's load
    in between would pass for a cost of new lengths; this way they sit a few calls apart, in every pass's turn, and
    still another length runs between a length's passes.
    """
    return [(p, k - p) for k in range(count + passes - 1) for p in range(passes) if 0 <= k - p < count]


def control(seed):
    """control() -> seconds of one fixed NumPy sort: work that is the same in every worker and every mode, so its
    time tells a worker's own speed (the machine's load while it ran) apart from its mode's. A sort runs on one
    thread, so the time is the work's, not a thread pool's waking up."""
    a = np.random.default_rng(seed).standard_normal(CONTROL_SIZE, dtype=np.float32)

    def timed():
        t0 = time.perf_counter()
        np.sort(a)
        return time.perf_counter() - t0
    return timed


def measure(task):
    """Run every length once per pass, timing each call alone, and the control once a turn of the passes."""
    processes.phase("import tensorflow")
    tf = import_tensorflow()   # its start-up lines would otherwise be the last stderr line a failure quotes

    processes.phase("data")
    x, w = make_data(task)
    lengths = range(task.start, task.start + task.count)
    processes.phase("build")
    call, traces, device = build(tf, task.mode, w, task)
    times, err, first_call_traces = [[None] * task.count for _ in range(task.passes)], 0.0, None
    sort, controls = control(task.seed), []
    processes.phase(f"{task.passes} passes, interleaved")
    for p, i in schedule(task.count, task.passes):
        if len(controls) == p + i:
            controls.append(sort())   # once before each turn of the passes (schedule's k): beside the calls
        a = np.ascontiguousarray(x[:, :lengths[i]])   # the copy is made outside the timed call
        t0 = time.perf_counter()
        y = call(a)
        times[p][i] = time.perf_counter() - t0
        # What the worker's very first call traced (or built), counted after it and outside its time.
        first_call_traces = traces() if (p, i) == (0, 0) else first_call_traces
        if i in (0, task.count - 1):
            err = max(err, max_rel_error(a, w, y))
    processes.phase("check")
    if not err <= TOLERANCE:
        raise ValueError(f"output differs from the NumPy reference by {err:.3g} relative (tolerance {TOLERANCE:g})")
    from tfgraphs.worker.graphs import build_facts   # imports TensorFlow, imported above already

    return {"tf_version": tf.__version__, "tf_build": build_facts(),
            "devices": [d.name for d in tf.config.list_physical_devices()],
            "device": device(), "traces": traces(), "first_call_traces": first_call_traces, "times_s": times,
            "max_rel_err": err, "control_s": controls,
            "env": {k: os.environ.get(k) for k in SWITCHES}}


if __name__ == "__main__":
    sys.exit(processes.main(ShapesTask, measure))
