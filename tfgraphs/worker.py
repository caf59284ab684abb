"""One measurement in a fresh process: `python -m tfgraphs.worker --variant V ...` prints one JSON document.

Progress goes to stderr as `@phase NAME` lines; anything else TensorFlow prints goes to stderr too,
because stdout is reserved for the result.
"""

import argparse
import os
import sys
import time

from tfgraphs import memory, network, protocol
from tfgraphs.tfimport import import_tensorflow

_phase = protocol.phase


def _timed(args, tf, built, x, w, rss):
    """Time session, init, first run and later runs; then size the graph once the peak is recorded."""
    from tfgraphs import graphdefs, presets

    out = {"rss_bytes": rss}
    config = presets.session_config(args.preset)

    _phase("session")
    t0 = time.perf_counter()
    sess = tf.compat.v1.Session(graph=built.graph, config=config)
    out["session_s"] = time.perf_counter() - t0
    rss["session"] = memory.rss_bytes()

    out["init_s"] = None
    if built.init is not None:
        _phase("init")
        t0 = time.perf_counter()
        sess.run(built.init, feed_dict=built.init_feed)
        out["init_s"] = time.perf_counter() - t0
        rss["init"] = memory.rss_bytes()

    _phase("first run")
    t0 = time.perf_counter()
    first = sess.run(built.output, feed_dict=built.feed)
    out["first_run_s"] = time.perf_counter() - t0
    rss["first_run"] = memory.rss_bytes()

    _phase("later runs")
    runs, last = [], None
    for _ in range(args.runs):
        t0 = time.perf_counter()
        last = sess.run(built.output, feed_dict=built.feed)
        runs.append(time.perf_counter() - t0)
    out["runs_s"] = runs
    rss["later_runs"] = memory.rss_bytes()
    out["peak_rss_bytes"] = max(memory.peak_rss_bytes(), max(rss.values()))
    sess.close()

    # Serializing makes one more copy of any embedded data, so it happens after the peak is read.
    _phase("serialize")
    t0 = time.perf_counter()
    graph_def = built.graph.as_graph_def()
    out["graph_bytes"] = len(graph_def.SerializeToString())
    out["serialize_s"] = time.perf_counter() - t0
    out["nodes"] = len(graph_def.node)
    out["const_bytes"] = graphdefs.const_bytes(graph_def)
    del graph_def

    _phase("check")
    out["max_abs_err"] = max(network.max_abs_error(x, w, first), network.max_abs_error(x, w, last))
    return out


def _traced(args, tf, built, x, w, rss):
    """Trace the first and second run with FULL_TRACE; optionally write Chrome traces and a TensorBoard graph."""
    from tfgraphs import presets, traces

    sess = tf.compat.v1.Session(graph=built.graph, config=presets.session_config(args.preset))
    if built.init is not None:
        sess.run(built.init, feed_dict=built.init_feed)
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    metas, walls = [], []
    for label in ("first", "second"):
        _phase(f"traced {label} run")
        meta = tf.compat.v1.RunMetadata()
        t0 = time.perf_counter()
        y = sess.run(built.output, feed_dict=built.feed, options=options, run_metadata=meta)
        walls.append(time.perf_counter() - t0)
        metas.append(meta)
    sess.close()
    out = {
        "first_run_s": walls[0],
        "runs_s": walls[1:],
        "top_ops": traces.op_table(metas[0].step_stats, metas[1].step_stats),
        "max_abs_err": network.max_abs_error(x, w, y),
        "trace_files": [],
    }
    tag = f"{args.variant}.{args.preset}"
    if args.trace_dir:
        for label, meta in zip(("first", "second"), metas):
            out["trace_files"].append(traces.write_chrome_trace(meta.step_stats, args.trace_dir, f"{tag}.{label}-run"))
    if args.tensorboard_dir:
        _phase("tensorboard")
        board = os.path.join(args.tensorboard_dir, args.variant)
        out["tensorboard_dir"] = traces.write_tensorboard_graph(built.graph, board)
    return out


def _limit(args, tf):
    """Embed X as a zero-stride view and record TensorFlow's answer and the resident memory around the call."""
    import numpy as np
    from tfgraphs import limits

    size = network.data_bytes(args.batch, args.dtype)
    # Below the limit TensorFlow accepts the view and copies it into a TensorProto, which is not what this probes.
    assert size >= limits.GRAPHDEF_LIMIT, f"limit mode needs X of at least 2 GiB, not {size:,} bytes"
    x = np.broadcast_to(np.zeros((), args.dtype), (args.batch, network.HEIGHT, network.WIDTH, network.CHANNELS))
    _phase("embed past the limit")
    out = {"data_bytes": size, "refused": False, "message": None, "rss_before_bytes": memory.rss_bytes()}
    with tf.Graph().as_default():
        try:
            tf.constant(x, name="X")
        except ValueError as exc:
            out.update(refused=True, message=f"{type(exc).__name__}: {exc}")
    out["rss_after_bytes"] = memory.rss_bytes()
    return out


def measure(args):
    """Make the data, build the graph, and run the chosen measurement."""
    _phase("import tensorflow")
    tf = import_tensorflow()
    from tfgraphs import graphs

    if args.mode == "limit":
        return {"tf_version": tf.__version__, **_limit(args, tf)}
    rss = {"start": memory.rss_bytes()}
    _phase("data")
    x, w = network.make_data(args.batch, args.dtype, args.seed)
    rss["data"] = memory.rss_bytes()
    _phase("build")
    t0 = time.perf_counter()
    built = graphs.build(args.variant, x, w)
    build_s = time.perf_counter() - t0
    rss["build"] = memory.rss_bytes()
    result = {"tf_version": tf.__version__,
              "devices": [d.name for d in tf.config.list_physical_devices()],
              "build_s": build_s}
    result.update((_traced if args.mode == "traced" else _timed)(args, tf, built, x, w, rss))
    tol = network.TOLERANCE[args.dtype]
    if not result["max_abs_err"] <= tol:
        raise ValueError(f"output differs from the NumPy reference by {result['max_abs_err']:.3g} (tolerance {tol:g})")
    return result


def parse_args(argv=None):
    """The worker's whole job arrives as flags."""
    from tfgraphs import presets, variants

    p = argparse.ArgumentParser(prog="python -m tfgraphs.worker", description=__doc__.splitlines()[0])
    p.add_argument("--variant", required=True, choices=sorted(variants.VARIANTS))
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--dtype", default="float64", choices=network.DTYPES)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--preset", default="default", choices=sorted(presets.PRESETS))
    p.add_argument("--mode", default="timed", choices=("timed", "traced", "limit"))
    p.add_argument("--trace-dir")
    p.add_argument("--tensorboard-dir")
    return p.parse_args(argv)


if __name__ == "__main__":
    sys.exit(protocol.main(parse_args, measure))
