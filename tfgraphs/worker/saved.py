"""Where X ends up besides the GraphDef: Saver's .meta, a checkpoint, a frozen graph, a placeholder's default."""

import glob
import os
import tempfile
import time

from tfgraphs.graphdef import consts
from tfgraphs.spec.pitfalls import CHECKPOINT, DEFAULT_CASES, FROZEN, GRAPH, LESSONS, META
from tfgraphs.spec import protocol
from tfgraphs.worker.runs import check_output


def holds(data, x):
    """True when the raw bytes of X appear, in one piece, in data."""
    return x.tobytes() in data


def _file_bytes(paths):
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
    from tfgraphs.worker.graphs import build

    names = LESSONS[task.lesson].cases[task.variant]
    built = build(task.variant, x, w)
    cases = []
    with tempfile.TemporaryDirectory() as folder:
        protocol.phase(GRAPH)
        cases.append(artifact(GRAPH, built.graph.as_graph_def().SerializeToString(), x))
        protocol.phase(META)
        meta = export_meta(tf, built.graph, os.path.join(folder, "model.meta"))
        probe = {}
        if task.batch > 1:
            # A second, one-example export gives the bytes per example without building anything larger.
            small = export_meta(tf, build(task.variant, x[:1], w).graph, os.path.join(folder, "probe.meta"))
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
            protocol.phase(CHECKPOINT)
            saver.save(sess, prefix, write_meta_graph=False)
            cases.append(artifact(CHECKPOINT, _file_bytes(glob.glob(prefix + ".*")), x))
        if FROZEN in names:
            protocol.phase(FROZEN)
            frozen = v1.graph_util.convert_variables_to_constants(sess, built.graph.as_graph_def(),
                                                                  [built.output.op.name])
            cases.append(artifact(FROZEN, frozen.SerializeToString(), x))
    return cases


def placeholder_default(tf, task, x, w):
    """A plain placeholder, then placeholder_with_default(X) not fed and fed: graph and Const bytes, first run."""
    from tfgraphs.worker import inside
    from tfgraphs.worker.graphs import seed_network

    v1, cases = tf.compat.v1, []
    for name in DEFAULT_CASES:
        protocol.phase(name)
        graph = tf.Graph()
        with graph.as_default():
            if name == DEFAULT_CASES[0]:
                xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
            else:
                xp = v1.placeholder_with_default(x, [None, *x.shape[1:]], name="X")
            out = seed_network(xp, tf.constant(w, name="W"))
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
        ran = inside.ran_graph(graph_def, meta.partition_graphs)
        cases.append({"case": name, "graph_bytes": graph_def.ByteSize(), "const_bytes": consts.const_bytes(graph_def),
                      "seconds": seconds, "computes": ran["partition_computes"],
                      "replaced_by_const": ran["replaced_by_const"]})
    return {"cases": cases}
