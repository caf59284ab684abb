"""The seed network measured in a fresh process: `python -m tfgraphs.worker.network --variant V ...` prints one
JSON document; on a grpc:// target, also where X lived and the bytes that crossed between tasks.

Progress goes to stderr as `@phase NAME` lines; anything else TensorFlow prints goes to stderr too,
because stdout is reserved for the result.
"""

import sys
import time

from tfgraphs import machine, processes
from tfgraphs.graphdef import consts
from tfgraphs.spec import network, tflog
from tfgraphs.spec.network import VARIANTS, SeedTask, task_of
from tfgraphs.tfimport import import_tensorflow

CHECKED = 100   # a first-run trial checks this many examples against NumPy; the timed trial checks them all


def _to_first_run(task, tf, built, rss):
    """Time the session, init and first run: (what was measured, the session, the first run's output)."""
    from tfgraphs.worker import graphs

    out = {"rss_bytes": rss}
    config = graphs.session_config(task.preset)
    processes.phase("session")
    t0 = time.perf_counter()
    sess = tf.compat.v1.Session(task.target or "", graph=built.graph, config=config)
    out["session_s"] = time.perf_counter() - t0
    rss["session"] = machine.rss_bytes()

    out["init_s"] = None
    if built.init is not None:
        processes.phase("init")
        t0 = time.perf_counter()
        sess.run(built.init, feed_dict=built.init_feed)
        out["init_s"] = time.perf_counter() - t0
        rss["init"] = machine.rss_bytes()

    processes.phase("first run")
    t0 = time.perf_counter()
    first = sess.run(built.output, feed_dict=built.feed)
    out["first_run_s"] = time.perf_counter() - t0
    rss["first_run"] = machine.rss_bytes()
    return out, sess, first


def _first_run(task, tf, built, x, w, rss):
    """The phases up to the first run, then task.runs later runs (none by default), the first and last outputs
    checked on the first CHECKED examples: an extra trial."""
    out, sess, first = _to_first_run(task, tf, built, rss)
    last, out["runs_s"] = first, []
    if task.runs:
        processes.phase("later runs")
    for _ in range(task.runs):
        t0 = time.perf_counter()
        last = sess.run(built.output, feed_dict=built.feed)
        out["runs_s"].append(time.perf_counter() - t0)
    sess.close()
    processes.phase("check")
    out["returns"] = task.returns
    out["max_abs_err"] = (max(network.sum_error(x, w, first), network.sum_error(x, w, last)) if task.returns == "sum"
                          else network.max_abs_error(x[:CHECKED], w, first[:CHECKED], last[:CHECKED]))
    return out


def _timed(task, tf, built, x, w, rss):
    """Time session, init, first run and later runs; then size the graph once the peak is recorded."""
    out, sess, first = _to_first_run(task, tf, built, rss)
    processes.phase("later runs")
    runs, last = [], None
    for _ in range(task.runs):
        t0 = time.perf_counter()
        last = sess.run(built.output, feed_dict=built.feed)
        runs.append(time.perf_counter() - t0)
    out["runs_s"] = runs
    rss["later_runs"] = machine.rss_bytes()
    out["peak_rss_bytes"] = max(machine.peak_rss_bytes(), max(rss.values()))
    processes.phase("partition graphs")
    out.update(_folded(tf, sess, built, VARIANTS[task.variant].embeds_data))
    out.update(_wire(task, tf, sess, built, last))
    sess.close()

    # Serializing makes one more copy of any embedded data, so it happens after the peak is read.
    out.update(_sizes(built.graph))

    out["max_abs_err"] = _error(task, x, w, first, last)
    return out


def _error(task, x, w, first, last):
    """The largest difference of the first and last outputs from the NumPy reference (of its sum, when summed)."""
    processes.phase("check")
    if task.returns == "sum":
        return max(network.sum_error(x, w, first), network.sum_error(x, w, last))
    return network.max_abs_error(x, w, first, last)


def _wire(task, tf, sess, built, fetched):
    """The target, the bytes every run sends and brings back, and for a cluster where X lived and what crossed."""
    import numpy as np

    fed = [np.asarray(a) for a in built.feed.values()]
    out = {"target": task.target or "", "returns": task.returns, "bytes_fed_per_run": sum(a.nbytes for a in fed),
           "bytes_fetched_per_run": np.asarray(fetched).nbytes}
    if fed:
        # Where the largest fed array's data starts: TF_NewTensor uses an aligned buffer in place, copies another.
        out["fed_address_mod_64"] = max(fed, key=lambda a: a.nbytes).ctypes.data % 64
    if task.network_device:
        out["network_device"] = task.network_device
        out["data_device"] = data_device(built, task.network_device)
        out["traced_between_tasks_bytes"], out["traced_run_s"] = between_tasks(tf, sess, built)
    return out


def data_device(built, network_device):
    """The device the graph's X node asked for, else the network's (None when TensorFlow chose)."""
    ops = {op.name: op for op in built.graph.get_operations()}
    asked = ops["X"].device if "X" in ops else ""
    return asked or network_device


def between_tasks(tf, sess, built):
    """One traced run after the timed ones: bytes TensorFlow reports received from another task, and its wall time."""
    processes.phase("traced run")
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    meta = tf.compat.v1.RunMetadata()
    t0 = time.perf_counter()
    sess.run(built.output, feed_dict=built.feed, options=options, run_metadata=meta)
    wall = time.perf_counter() - t0
    return received_bytes(meta.step_stats), wall


def received_bytes(step_stats):
    """Bytes of every RecvTensor in the step stats whose sender is another task (its label says "from ... to")."""
    total = 0
    for dev in step_stats.dev_stats:
        for node in dev.node_stats:
            if node.node_name != "RecvTensor" or " from " not in node.timeline_label:
                continue
            sender = node.timeline_label.split(" from ", 1)[1].split(" to ", 1)[0]
            if task_of(sender) != task_of(dev.device):
                total += sum(o.tensor_description.allocation_description.requested_bytes for o in node.output)
    return total


def _folded(tf, sess, built, embeds_data):
    """One more run, untimed and after the timed ones: the partition graphs that ran, and, for an embedded X,
    whether Conv2D is gone from them."""
    from tfgraphs.worker import graphs

    ran = graphs.partition_run(sess, built, built.output)
    computes = ran["partition_computes"]
    return {"folded": not computes["Conv2D"] if embeds_data and computes is not None else None, **ran}


def _sizes(graph):
    """Serialize the graph, timed; its bytes, nodes and Const bytes."""
    processes.phase("serialize")
    t0 = time.perf_counter()
    graph_def = graph.as_graph_def()
    graph_bytes = len(graph_def.SerializeToString())
    serialize_s = time.perf_counter() - t0
    return {"graph_bytes": graph_bytes, "serialize_s": serialize_s, "nodes": len(graph_def.node),
            "const_bytes": consts.const_bytes(graph_def)}


def _traced(task, tf, built, x, w, rss):
    """Trace the first and second run with FULL_TRACE, the first logged by TensorFlow's optimizers; optionally write
    Chrome traces and a TensorBoard graph."""
    from tfgraphs.worker import graphs

    sess = tf.compat.v1.Session(task.target or "", graph=built.graph, config=graphs.session_config(task.preset))
    if built.init is not None:
        sess.run(built.init, feed_dict=built.init_feed)
    metas, walls, y, log = graphs.traced_pair(sess, built.output, built.feed, processes.phase,
                                               around_first=graphs.captured_stderr)
    sess.close()
    top_ops = graphs.op_table(metas[0].step_stats, metas[1].step_stats)
    out = {
        "first_run_s": walls[0],
        "runs_s": walls[1:],
        "top_ops": top_ops,
        "folded": graphs.folded(top_ops) if VARIANTS[task.variant].embeds_data else None,
        "max_abs_err": (network.sum_error if task.returns == "sum" else network.max_abs_error)(x, w, y),
        "target": task.target or "", "returns": task.returns,
        "trace_files": [],
        # A remote session's optimizers log in the server's process, not here: nothing to read for them.
        "first_run_log": None if task.target else log,
        "first_run_inside": None if task.target else tflog.stages(log),
        **graphs.ran_graph(built.graph.as_graph_def(), metas[1].partition_graphs),
    }
    traces, board = task.writes()
    if traces:
        out["trace_files"] = graphs.write_chrome_traces(metas, traces)
    if board:
        processes.phase("tensorboard")
        out["tensorboard_dir"] = graphs.write_tensorboard_graph(built.graph, board)
    return out


def _single_thread(task, tf, built, x, w, rss):
    """Time the network on one intra-op and one inter-op thread: what one evaluation costs the classic folder."""
    from tfgraphs.worker import graphs

    config = graphs.session_config(task.preset)
    config.intra_op_parallelism_threads = 1
    config.inter_op_parallelism_threads = 1
    sess = tf.compat.v1.Session(graph=built.graph, config=config)
    if built.init is not None:
        sess.run(built.init, feed_dict=built.init_feed)
    processes.phase("single-threaded runs")
    t0 = time.perf_counter()
    first = sess.run(built.output, feed_dict=built.feed)
    out = {"first_run_s": time.perf_counter() - t0, "runs_s": []}
    for _ in range(task.runs):
        t0 = time.perf_counter()
        last = sess.run(built.output, feed_dict=built.feed)
        out["runs_s"].append(time.perf_counter() - t0)
    sess.close()
    out["max_abs_err"] = network.max_abs_error(x, w, first, last)
    return out


def _limit(task, tf):
    """Embed X as a zero-stride view and record TensorFlow's answer and the resident memory around the call."""
    import numpy as np

    size = network.data_bytes(task.batch, task.dtype)
    # Below the limit TensorFlow accepts the view and copies it into a TensorProto, which is not what this probes.
    assert size >= network.TENSOR_LIMIT, f"limit mode needs X of at least 2 GiB, not {size:,} bytes"
    x = np.broadcast_to(np.zeros((), task.dtype), (task.batch, network.HEIGHT, network.WIDTH, network.CHANNELS))
    processes.phase("embed past the limit")
    out = {"data_bytes": size, "refused": False, "message": None, "rss_before_bytes": machine.rss_bytes()}
    with tf.Graph().as_default():
        try:
            tf.constant(x, name="X")
        except ValueError as exc:
            out.update(refused=True, message=f"{type(exc).__name__}: {exc}")
    out["rss_after_bytes"] = machine.rss_bytes()
    return out


def measure(task):
    """Make the data, build the graph, and run the chosen measurement."""
    processes.phase("import tensorflow")
    t0 = time.perf_counter()
    tf = import_tensorflow()
    import_s = time.perf_counter() - t0
    from tfgraphs.worker import graphs   # imports TensorFlow: after its own import is timed

    if task.mode == "limit":
        return {"tf_version": tf.__version__, **_limit(task, tf)}
    rss = {"start": machine.rss_bytes()}
    processes.phase("data")
    x, w = network.make_data(task.batch, task.dtype, task.seed)
    rss["data"] = machine.rss_bytes()
    processes.phase("build")
    t0 = time.perf_counter()
    built = graphs.build(task.variant, x, w, task.returns, task.network_device, task.data_device)
    build_s = time.perf_counter() - t0
    rss["build"] = machine.rss_bytes()
    result = {"tf_version": tf.__version__, "tf_build": graphs.build_facts(), "import_s": import_s,
              "devices": [d.name for d in tf.config.list_physical_devices()],
              "build_s": build_s}
    result.update(MODES[task.mode](task, tf, built, x, w, rss))
    network.check_close(result["max_abs_err"], task.dtype)
    return result


MODES = {"timed": _timed, "first-run": _first_run, "traced": _traced, "single-thread": _single_thread}

if __name__ == "__main__":
    sys.exit(processes.main(SeedTask, measure))
