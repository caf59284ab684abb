"""What actually ran, from a traced run's step stats: per-op times and Chrome trace files."""

import re
import time
from contextlib import nullcontext

from tfgraphs.fileio import write_atomic
from tfgraphs.spec import kernels

_LABEL = re.compile(r"^\s*([^=]+?)\s*=\s*([A-Za-z0-9_]+)")


def op_times(step_stats):
    """{node name: (op type, total ms)} over every device in one run's step stats."""
    times = {}
    for dev in step_stats.dev_stats:
        for node in dev.node_stats:
            if node.node_name == "_SOURCE":
                continue
            match = _LABEL.match(node.timeline_label)
            op_type = match.group(2) if match else ""
            _, ms = times.get(node.node_name, (op_type, 0.0))
            times[node.node_name] = (op_type, ms + node.all_end_rel_micros / 1000.0)
    return times


def op_table(first_stats, later_stats):
    """Every op that ran in either run, with its time in each (None where it did not run), slowest first."""
    first, later = op_times(first_stats), op_times(later_stats)
    rows = []
    for name in first.keys() | later.keys():
        op_type = (first.get(name) or later.get(name))[0]
        rows.append({
            "op": name,
            "type": op_type,
            "first_ms": first[name][1] if name in first else None,
            "later_ms": later[name][1] if name in later else None,
        })
    rows.sort(key=lambda r: (-(r["first_ms"] or 0.0), -(r["later_ms"] or 0.0), r["op"]))
    return rows


def folded(top_ops):
    """True when no kernel computing Conv2D ran in the later traced run (step stats): it was replaced by a constant."""
    return not any(kernels.runs_as(op["type"], "Conv2D") and op["later_ms"] is not None for op in top_ops)


def write_chrome_trace(step_stats, path):
    """Write one run's step stats as Chrome trace JSON (opens in Perfetto or chrome://tracing)."""
    from tensorflow.python.client import timeline

    text = timeline.Timeline(step_stats).generate_chrome_trace_format(show_memory=True)
    write_atomic(path, lambda f: f.write(text))
    return path


def traced_pair(tf, sess, fetches, feed, phase, around_first=nullcontext):
    """The first and second run with FULL_TRACE and the partition graphs: ([RunMetadata, ...], [wall s, ...], the
    second run's output, what around_first() yielded for the first run)."""
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE, output_partition_graphs=True)
    metas, walls, out, held = [], [], None, None
    for label in ("first", "second"):
        phase(f"traced {label} run")
        meta = tf.compat.v1.RunMetadata()
        with around_first() if label == "first" else nullcontext() as caught:
            t0 = time.perf_counter()
            out = sess.run(fetches, feed_dict=feed, options=options, run_metadata=meta)
            walls.append(time.perf_counter() - t0)
        held = caught if label == "first" else held
        metas.append(meta)
    return metas, walls, out, held


def write_chrome_traces(metas, paths):
    """The two traced runs as Chrome trace files at paths (a task's writes()); the paths."""
    return [write_chrome_trace(meta.step_stats, path) for meta, path in zip(metas, paths)]
