"""Graphs and sessions as the workers build, run and read them: the seed network per variant, the fixed-block 1-D
convolution, a preset's session, traced runs, and what TensorFlow reports of a run (step stats, the partition graphs
that ran, its optimizers' log). Imports TensorFlow: a worker imports this module after timing its own import.
"""

import os
import re
import sys
import tempfile
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field

import tensorflow as tf

from tfgraphs.fileio import write_atomic
from tfgraphs.spec import tflog
from tfgraphs.spec.options import PRESETS

LABEL = re.compile(r"^\s*([^=]+?)\s*=\s*([A-Za-z0-9_]+)")   # a step stat's timeline label: "name = OpType(...)"
# Blocks per convolution call. Fixed, so the batch dimension of the inner call never takes a new value either;
# 8 keeps the padding of the last call small for signals of a few blocks while giving each call some width.
BLOCKS_PER_CALL = 8


# The seed network, one builder per variant

@dataclass
class Built:
    """A built graph and what a session needs to run it."""

    output: tf.Tensor
    feed: dict = field(default_factory=dict)   # fed on every run
    init: object = None                        # op run once before the first run
    init_feed: dict = field(default_factory=dict)
    graph: tf.Graph = None


def seed_network(x, w):
    """conv2d 3x3/1 VALID -> avg_pool 2x2/2 VALID -> relu, as in the seed."""
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID", name="conv")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool")
    return tf.nn.relu(pool, name="relu")


def _numpy(x, w):
    return Built(seed_network(x, w))


def _constant(x, w):
    out = seed_network(tf.constant(x, name="X"), tf.constant(w, name="W"))
    return Built(out)


def _placeholder(x, w):
    # As in the seed, both X and W are fed.
    xp = tf.compat.v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
    wp = tf.compat.v1.placeholder(w.dtype, w.shape, name="W")
    return Built(seed_network(xp, wp), feed={xp: x, wp: w})


def _variable(x, w, data_device=None):
    # Where X lives decides which bytes cross between tasks in a cluster; None leaves it with the network.
    with tf.device(data_device):
        xp = tf.compat.v1.placeholder(x.dtype, x.shape, name="X_init")
        xv = tf.compat.v1.Variable(xp, trainable=False, name="X")
    out = seed_network(xv, tf.constant(w, name="W"))
    return Built(out, init=xv.initializer, init_feed={xp: x})


def _dataset_embedded(x, w):
    ds = tf.data.Dataset.from_tensor_slices(x).batch(x.shape[0]).repeat()
    batch = tf.compat.v1.data.make_one_shot_iterator(ds).get_next(name="X")
    return Built(seed_network(batch, tf.constant(w, name="W")))


def _dataset_fed(x, w):
    xp = tf.compat.v1.placeholder(x.dtype, x.shape, name="X_init")
    ds = tf.data.Dataset.from_tensor_slices(xp).batch(x.shape[0]).repeat()
    it = tf.compat.v1.data.make_initializable_iterator(ds)
    out = seed_network(it.get_next(name="X"), tf.constant(w, name="W"))
    return Built(out, init=it.initializer, init_feed={xp: x})


BUILDERS = {
    "numpy": _numpy,
    "constant": _constant,
    "placeholder": _placeholder,
    "variable": _variable,
    "dataset-embedded": _dataset_embedded,
    "dataset-fed": _dataset_fed,
}

# Builders that can keep X on a device of its own (a variable is state, so it may live on a parameter server).
PLACES_DATA = ("variable",)


def build(variant, x, w, returns="output", network_device=None, data_device=None):
    """Build `variant` of the network on x, w in a fresh graph, on the devices named (None: TensorFlow's choice).

    returns="sum" fetches the output's sum instead, computed where the network runs so only a scalar comes back.
    """
    graph = tf.Graph()
    with graph.as_default(), tf.device(network_device):
        placed = data_device and variant in PLACES_DATA
        built = BUILDERS[variant](x, w, data_device) if placed else BUILDERS[variant](x, w)
        if returns == "sum":
            built.output = tf.reduce_sum(built.output, name="output_sum")
    built.graph = graph
    return built


# The 1-D convolution that keeps one shape whatever the input length (shapes' blocked mode)

def conv_input_shape(kernel, channels, block_len, blocks_per_call=BLOCKS_PER_CALL):
    """The one shape every inner convolution call sees: [blocks_per_call, block_len + kernel - 1, channels]."""
    return (blocks_per_call, block_len + kernel - 1, channels)


def blocked_conv1d(x, filters, block_len, blocks_per_call=BLOCKS_PER_CALL):
    """tf.nn.conv1d(x, filters, stride=1, padding="VALID") for x [N, L, C], L >= kernel, in fixed-shape blocks."""
    if block_len < 1 or blocks_per_call < 1:
        raise ValueError(f"block_len and blocks_per_call must be at least 1, not {block_len} and {blocks_per_call}")
    x = tf.convert_to_tensor(x)
    filters = tf.convert_to_tensor(filters, dtype=x.dtype)
    kernel, channels, out_channels = filters.shape
    assert None not in (kernel, channels, out_channels), "filters need a static shape"
    frame = block_len + kernel - 1
    n, length = tf.shape(x)[0], tf.shape(x)[1]

    # Lay every signal end to end. Output p needs inputs p..p+kernel-1 only, so the outputs that straddle two
    # signals are computed and dropped, and no signal is padded up to a whole block of its own.
    stream = tf.reshape(x, [-1, channels])
    total = n * length
    per_call = blocks_per_call * block_len
    calls = (total + per_call - 1) // per_call
    stream = tf.pad(stream, [[0, calls * per_call + kernel - 1 - total], [0, 0]])
    # Block b holds inputs [b * block_len, b * block_len + frame): its VALID outputs are exactly block_len long.
    blocks = tf.signal.frame(stream, frame, block_len, axis=0)
    chunks = tf.reshape(blocks, [calls, blocks_per_call, frame, channels])
    out = tf.map_fn(lambda chunk: tf.nn.conv1d(chunk, filters, stride=1, padding="VALID"), chunks,
                    fn_output_signature=tf.TensorSpec([blocks_per_call, block_len, out_channels], x.dtype))
    out = tf.reshape(out, [-1, out_channels])[:total]
    return tf.reshape(out, [n, length, out_channels])[:, :length - kernel + 1]


# The session and the TensorFlow it runs on

def session_config(preset):
    """A tf.compat.v1.ConfigProto for the preset named `preset`, setting only the fields the preset switches off."""
    from tensorflow.core.protobuf import rewriter_config_pb2

    assert preset in PRESETS, f"unknown preset {preset!r}"
    p = PRESETS[preset]
    config = tf.compat.v1.ConfigProto()
    graph_options = config.graph_options
    if not p.grappler:
        graph_options.rewrite_options.disable_meta_optimizer = True
    if not p.folding:
        graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
        graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
        # False is already proto3's default; L1 folds regardless of it, L0 folds only when it is True.
        graph_options.optimizer_options.do_constant_folding = False
    return config


def build_facts():
    """{"cuda_build", "onednn"}: a CUDA build or not, and whether oneDNN's CPU kernels are on in this process."""
    from tensorflow.python.util import _pywrap_util_port   # TensorFlow's own answer; there is no public one

    return {"cuda_build": bool(tf.test.is_built_with_cuda()), "onednn": bool(_pywrap_util_port.IsMklEnabled())}


# Traced runs: what ran, from their step stats

def op_times(step_stats):
    """{node name: (op type, total ms)} over every device in one run's step stats."""
    times = {}
    for dev in step_stats.dev_stats:
        for node in dev.node_stats:
            if node.node_name == "_SOURCE":
                continue
            match = LABEL.match(node.timeline_label)
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
    return not any(tflog.runs_as(op["type"], "Conv2D") and op["later_ms"] is not None for op in top_ops)


def traced_pair(sess, fetches, feed, phase, around_first=nullcontext):
    """The first and second run with FULL_TRACE, the second with its partition graphs: ([RunMetadata, ...], [wall s,
    ...], the second run's output, what around_first() yielded for the first run)."""
    metas, walls, out, held = [], [], None, None
    for label in ("first", "second"):
        phase(f"traced {label} run")
        # The first run's own time and log leave out copying the graph that ran into its RunMetadata, which an
        # embedded X makes as large as X; the second run reports that graph.
        options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE,
                                          output_partition_graphs=label == "second")
        meta = tf.compat.v1.RunMetadata()
        with around_first() if label == "first" else nullcontext() as caught:
            t0 = time.perf_counter()
            out = sess.run(fetches, feed_dict=feed, options=options, run_metadata=meta)
            walls.append(time.perf_counter() - t0)
        held = caught if label == "first" else held
        metas.append(meta)
    return metas, walls, out, held


# The first run as TensorFlow reports it: its optimizers' log, and the graph that actually ran

@contextmanager
def captured_stderr():
    """Hold what is written to fd 2 (TensorFlow's C++ log), between the worker's two marks, in a list of lines filled
    when the block ends."""
    lines = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        os.write(2, tflog.mark(tflog.CALLED).encode())
        try:
            yield lines
        finally:
            os.write(2, tflog.mark(tflog.RETURNED).encode())
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            lines.extend(tflog.logged_lines(held.read().decode("utf-8", "replace")))


def ran_graph(graph_def, partition_graphs):
    """What the partition graphs hold: op types counted, and the Const nodes that folding made."""
    if not partition_graphs:
        # A session that returned none (a remote master may not) reported nothing to read: no evidence, no verdict.
        return dict.fromkeys(("partition_ops", "replaced_by_const", "partition_computes", "partition_stateful"))
    before = {node.name: node.op for node in graph_def.node}
    ops, replaced = {}, []
    for graph in partition_graphs:
        for node in graph.node:
            ops[node.op] = ops.get(node.op, 0) + 1
            # A folded node is a Const where the user's graph had another op, or a Const the folder named anew.
            if node.op == "Const" and before.get(node.name, "") != "Const":
                replaced.append(node.name)
    computes = {op: any(tflog.runs_as(t, op) for t in ops) for op in tflog.NETWORK_OPS}
    return {"partition_ops": dict(sorted(ops.items())), "replaced_by_const": sorted(replaced),
            "partition_computes": computes, "partition_stateful": stateful(ops)}


def partition_run(sess, built, fetch):
    """One more, untimed run of fetch after the timed ones: what its partition graphs computed (ran_graph)."""
    meta = tf.compat.v1.RunMetadata()
    sess.run(fetch, feed_dict=built.feed, options=tf.compat.v1.RunOptions(output_partition_graphs=True),
             run_metadata=meta)
    return ran_graph(built.graph.as_graph_def(), meta.partition_graphs)


def stateful(op_types):
    """The op types that TensorFlow's op registry marks stateful: no constant folder evaluates them."""
    from tensorflow.python.framework import op_def_registry

    # The executor's own _Arg and _Retval are marked stateful too; they say nothing about the graph.
    return sorted(t for t in op_types
                  if not t.startswith("_") and (op_def_registry.get(t) or NotStateful).is_stateful)


class NotStateful:
    """The op registry's answer for an op it does not know: not stateful."""

    is_stateful = False


# What a traced run writes for people to open

def write_chrome_trace(step_stats, path):
    """Write one run's step stats as Chrome trace JSON (opens in Perfetto or chrome://tracing)."""
    from tensorflow.python.client import timeline

    text = timeline.Timeline(step_stats).generate_chrome_trace_format(show_memory=True)
    write_atomic(path, lambda f: f.write(text))
    return path


def write_chrome_traces(metas, paths):
    """The two traced runs as Chrome trace files at paths (a task's writes()); the paths."""
    return [write_chrome_trace(meta.step_stats, path) for meta, path in zip(metas, paths)]


def write_tensorboard_graph(graph, directory):
    """Write `graph` as a TensorBoard event file in `directory` (needs no tensorboard package); return the directory."""
    # FileWriter refuses to work while eager execution is the default, so enter the graph first.
    with graph.as_default():
        writer = tf.compat.v1.summary.FileWriter(directory, graph=graph)
        writer.flush()
        writer.close()
    return directory
