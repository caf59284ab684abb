"""The folding lesson: which graphs the constant folders replace, read from the graphs that ran and their own log."""

import time

from tfgraphs.spec import network, protocol, tflog
from tfgraphs.spec.pitfalls import FOLDING_CASES, RAISED_FOLD_LIMIT
from tfgraphs.worker import inside


def _built(case, x, w):
    """The case's network in a fresh graph: X embedded, behind a one-shot iterator, or fed."""
    from tfgraphs.worker.graphs import build

    variant = {"stateful input": "dataset-embedded", "fed input": "placeholder"}.get(case, "constant")
    return build(variant, x, w, returns="sum" if case == "scalar fetch" else "output")


def _config(tf, case):
    config = tf.compat.v1.ConfigProto()
    if case == "larger folder limit":
        # The classic folder's own limit on a replaced tensor; Grappler's folder keeps its own.
        config.graph_options.optimizer_options.max_folded_constant_in_bytes = RAISED_FOLD_LIMIT
    return config


def folding(tf, task, x, w):
    """Each case in its own graph and session: its first and second run, the graph that ran, the folders' log."""
    cases = []
    for case in FOLDING_CASES:
        protocol.phase(case)
        built = _built(case, x, w)
        with tf.compat.v1.Session(graph=built.graph, config=_config(tf, case)) as sess:
            with inside.captured_stderr() as log:
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
        ran = inside.ran_graph(built.graph.as_graph_def(), meta.partition_graphs)
        cases.append({"case": case, "seconds": first_s, "later_s": later_s, "computes": ran["partition_computes"],
                      "replaced_by_const": ran["replaced_by_const"], "stateful": ran["partition_stateful"],
                      "fed": ran["partition_ops"].get("_Arg", 0), "folder_log": tflog.stages(log),
                      "fetched_bytes": int(getattr(first, "nbytes", 0))})
    return {"cases": cases}
