"""A user's graph measured in a fresh process: `python -m tfgraphs.worker.owngraph --path P ...` prints one JSON
document. A GraphDef is imported; a SavedModel is loaded with tf.compat.v1.saved_model.loader.load, as a user would.
"""

import os
import sys
import time

from tfgraphs import machine, processes
from tfgraphs.graphdef import consts, files
from tfgraphs.spec import owngraph, tflog
from tfgraphs.spec.owngraph import GraphTask
from tfgraphs.tfimport import import_tensorflow


def _open(task, tf, config, out, rss):
    """A session holding the task's graph; times the import (GraphDef) or loader.load (SavedModel) apart."""
    v1 = tf.compat.v1
    out["build_s"] = out["init_s"] = None
    if task.tag is None:
        processes.phase("import")
        t0 = time.perf_counter()
        graph_def, _ = files.load(task.path)
        graph = tf.Graph()
        with graph.as_default():
            v1.import_graph_def(graph_def, name="")
        out["build_s"] = time.perf_counter() - t0
        del graph_def
        rss["build"] = machine.rss_bytes()
    processes.phase("session")
    t0 = time.perf_counter()
    sess = v1.Session(graph=graph if task.tag is None else tf.Graph(), config=config)
    out["session_s"] = time.perf_counter() - t0
    rss["session"] = machine.rss_bytes()
    if task.tag is not None:
        processes.phase("load and restore")
        folder = task.path if os.path.isdir(task.path) else os.path.dirname(task.path)
        t0 = time.perf_counter()
        with sess.graph.as_default():
            v1.saved_model.loader.load(sess, [task.tag], folder)
        out["init_s"] = time.perf_counter() - t0
        rss["init"] = machine.rss_bytes()
    return sess


def _timed(task, tf, feed, fetches, rss):
    """Time the session, loading, the first run and later runs; save the first run's outputs when asked."""
    from tfgraphs.worker import graphs

    out = {"rss_bytes": rss}
    sess = _open(task, tf, graphs.session_config(task.preset), out, rss)
    processes.phase("first run")
    t0 = time.perf_counter()
    first = sess.run(fetches, feed_dict=feed)
    out["first_run_s"] = time.perf_counter() - t0
    rss["first_run"] = machine.rss_bytes()
    processes.phase("later runs")
    runs = []
    for _ in range(task.runs):
        t0 = time.perf_counter()
        sess.run(fetches, feed_dict=feed)
        runs.append(time.perf_counter() - t0)
    out["runs_s"] = runs
    rss["later_runs"] = machine.rss_bytes()
    out["peak_rss_bytes"] = max(machine.peak_rss_bytes(), max(rss.values()))
    graph = sess.graph
    sess.close()
    out.update(_sizes(graph))
    if task.outputs_path:
        import numpy as np

        np.savez(task.outputs_path, *first)
    return out


def _sizes(graph):
    """The graph's bytes, nodes and Const bytes, serialized after the peak was read (it makes one more copy)."""
    processes.phase("serialize")
    t0 = time.perf_counter()
    graph_def = graph.as_graph_def()
    graph_bytes = graph_def.ByteSize()
    return {"graph_bytes": graph_bytes, "serialize_s": time.perf_counter() - t0, "nodes": len(graph_def.node),
            "const_bytes": consts.const_bytes(graph_def)}


def _traced(task, tf, feed, fetches, rss):
    """Trace the first and second run with FULL_TRACE, the first logged by TensorFlow's optimizers; optionally
    write Chrome traces and a TensorBoard graph."""
    from tfgraphs.worker import graphs

    sess = _open(task, tf, graphs.session_config(task.preset), {}, rss)
    metas, walls, _, log = graphs.traced_pair(sess, fetches, feed, processes.phase,
                                              around_first=graphs.captured_stderr)
    graph = sess.graph
    sess.close()
    out = {"first_run_s": walls[0], "runs_s": walls[1:], "trace_files": [],
           "top_ops": graphs.op_table(metas[0].step_stats, metas[1].step_stats),
           "first_run_log": log, "first_run_inside": tflog.stages(log),
           **graphs.ran_graph(graph.as_graph_def(), metas[1].partition_graphs)}
    traces, board = task.writes()
    if traces:
        out["trace_files"] = graphs.write_chrome_traces(metas, traces)
    if board:
        processes.phase("tensorboard")
        out["tensorboard_dir"] = graphs.write_tensorboard_graph(graph, board)
    return out


def short_message(message):
    """TensorFlow's own words about a failed run: its message without the preamble, the trace and the node lines."""
    skip = ("Graph execution error", "Detected at node", "Node:", "[[", "File ", "(most recent call last)")
    lines = [line.strip() for line in message.splitlines() if line.strip() and not line.strip().startswith(skip)]
    return "; ".join(lines[:2]) or message.strip()


def measure(task):
    """Make the seeded feeds, open the graph, and run the chosen measurement; a failed run keeps TF's message."""
    processes.phase("import tensorflow")
    tf = import_tensorflow()
    try:
        return _measure(task, tf)
    except tf.errors.OpError as exc:
        node = f" (node {exc.op.name})" if exc.op is not None else ""
        # The first line of exc is a preamble; the parent's row should show what TensorFlow said was wrong.
        raise type(exc)(exc.node_def, exc.op, short_message(exc.message) + node) from exc


def _measure(task, tf):
    """The measurement itself, with TensorFlow imported."""
    rss = {"start": machine.rss_bytes()}
    processes.phase("data")
    feed = owngraph.feed_data(owngraph.decode_feeds(task.feeds), task.seed, task.int_high)
    fetches = list(owngraph.decode_fetches(task.fetches))
    rss["data"] = machine.rss_bytes()
    result = {"tf_version": tf.__version__, "devices": [d.name for d in tf.config.list_physical_devices()]}
    result.update((_traced if task.mode == "traced" else _timed)(task, tf, feed, fetches, rss))
    return result


if __name__ == "__main__":
    sys.exit(processes.main(GraphTask, measure))
