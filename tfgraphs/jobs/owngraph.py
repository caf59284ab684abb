"""The jobs on a user's own graph file: explain --graph times and traces it under each session preset in fresh
workers, inspect sizes what it holds without running it, and unembed rewrites its large Consts into variables in a
worker, then checks the rewrite in two more."""

import errno
import hashlib
import math
import os
import shutil
import tempfile
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, replace

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.fileio import folder_takes_a_file, write_atomic
from tfgraphs.graphdef import consts, files
from tfgraphs.graphdef.consts import const_bytes
from tfgraphs.graphdef.files import resolve
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Job, Plan
from tfgraphs.records.explain import ExplainedGraph, attribute
from tfgraphs.records.judge import RANK_SUM
from tfgraphs.records.one_record import Inspection, Unembedding, side
from tfgraphs.records.results import ExplainResults
from tfgraphs.records.results import Measurement, Row
from tfgraphs.spec import options
from tfgraphs.spec.network import GRAPHDEF_LIMIT
from tfgraphs.spec.options import FEWEST, REQUIRED, Option, Whole, byte_size, optional_path, switch
from tfgraphs.spec.owngraph import (FEED, FETCH, GRAPH_PATH, INT_HIGH_OPTION, MIN_BYTES, SIGNATURE, TAG, GraphTask,
                                    UnembedTask, encode_feeds, encode_fetches, graph_name, max_abs_difference, tolerance)
from tfgraphs.tfimport import import_tensorflow


# explain --graph: the graph under each session preset, timed and traced in fresh workers; its Config is how
# any of these jobs reads, feeds and fetches the graph.
@dataclass(frozen=True)
class Config:
    """Which graph, how to feed and fetch it, and the presets to try."""

    path: str = GRAPH_PATH.field()
    runs: int = options.RUNS.field()
    # The least at which the rank test can tell two presets' first runs apart, as for the seed network.
    trials: int = options.TRIALS.field(default=FEWEST[RANK_SUM])
    seed: int = options.SEED.field()
    presets: tuple = options.CHOSEN_PRESETS.field()
    tag: str = TAG.field()
    signature: str = SIGNATURE.field()
    dims: tuple = FEED.field()      # ((input name, (d1, d2, ...)), ...)
    fetches: tuple = FETCH.field()
    int_high: int = INT_HIGH_OPTION.field()

    def to_dict(self):
        return {**asdict(self), "presets": list(self.presets), "dims": {k: list(d) for k, d in self.dims},
                "fetches": list(self.fetches)}


@dataclass(frozen=True)
class GraphPlan(Plan):
    """A plan with the graph's resolved interface, so the graph is read once."""

    interface: object = None


def interface_of(config):
    """The graph's Interface, or a one-line UsageError for anything that keeps it from running."""
    # unembed without --check only rewrites the graph, so its inputs need no full shape.
    runs = getattr(config, "check", True)
    return resolve(config.path, config.tag, config.signature, dict(config.dims), config.fetches, runs=runs)


def describe(interface):
    """The graph's interface as plain data, for a report's config."""
    return {"graph": interface.path, "name": interface.name, "format": interface.format, "tag": interface.tag,
            "signature": interface.signature,
            "inputs": [{"key": k, "tensor": f.tensor, "dtype": f.dtype, "shape": list(f.shape)}
                       for k, f in interface.inputs],
            "outputs": [{"key": k, "tensor": t} for k, t in interface.outputs]}


def task(config, interface, **how):
    """The worker task measuring the graph; how = path, preset, mode and output locations."""
    return GraphTask(**{"path": interface.path, "tag": interface.tag, **how}, name=interface.name,
                     fetches=encode_fetches(interface.fetches), feeds=encode_feeds(interface.feeds),
                     runs=config.runs, seed=config.seed, int_high=config.int_high)


def label(t):
    """How a worker on the graph is named in progress: the graph, its preset and mode when not the defaults."""
    return (t.name + (f" [{t.preset}]" if t.preset != "default" else "")
            + (f" {t.mode}" if t.mode != "timed" else ""))


def plan(config):
    """Read and check the graph; one timed worker per trial and one traced worker for every preset."""
    found = interface_of(config)
    return GraphPlan({}, (), workers=len(config.presets) * (config.trials + 1), interface=found, data_held=holds(found))


def holds(interface):
    """What a worker running the graph allocates before it runs: its feeds, and its Consts once expanded."""
    tf = import_tensorflow()
    # Without --check, unembed leaves unknown dimensions unknown (-1): nothing is fed.
    fed = sum(math.prod(f.shape) * tf.dtypes.as_dtype(f.dtype).size for f in interface.feeds
              if min(f.shape, default=0) >= 0)
    held = const_bytes(interface.graph_def)
    remedy = "smaller --feed dimensions" if fed >= held else "tfgraphs inspect to see which constants hold it"
    return ((f"{interface.name}'s feeds ({fed:,} bytes) and its constants ({held:,} bytes, expanded)", fed + held,
             remedy),)


def writes(config, trace_dir, tensorboard_dir):
    """(trace files, TensorBoard folders) the traced workers will write, known before the graph is read."""
    # The fetches name no file.
    found = [GraphTask(path=config.path, name=graph_name(config.path), fetches="", preset=p, mode="traced",
                       trace_dir=trace_dir,
                       tensorboard_dir=tensorboard_dir if p == config.presets[0] else None).writes()
             for p in config.presets]
    return [p for traces, _ in found for p in traces], [board for _, board in found if board]


def run(config, plan, progress, timeout=None, trace_dir=None, tensorboard_dir=None):
    """Timed workers for every preset, then one traced worker each, kept apart from the timing."""
    found = plan.interface
    timed = [task(config, found, preset=p) for p in config.presets]
    docs, ran = runner.run_trials(timed, config.trials, label, progress, timeout)
    rows = []
    for t in timed:
        board = tensorboard_dir if t.preset == config.presets[0] else None
        traced = task(config, found, preset=t.preset, mode="traced", trace_dir=trace_dir, tensorboard_dir=board)
        doc = runner.run_worker(traced, label(traced), progress, timeout)
        ran.append(doc)
        rows.append(_row(found.name, t, docs[t], Measurement.from_worker(doc)))
    tf_version, machine = runner.envelope(ran)
    excess = {r.preset: r.first_run_excess_s for r in rows}
    return ExplainResults(ExplainedGraph.from_dict({**config.to_dict(), **describe(found)}), tuple(rows),
                          tf_version=tf_version, machine=machine,
                          attribution=({"variant": found.name, **attribute(excess)},))


def _row(name, t, docs, trace):
    """A timed row named after the graph, with its traced run's ops; failed when the traced run failed."""
    row = Row.from_trials(name, [Measurement.from_worker(d) for d in docs], preset=t.preset)
    if trace.status == "ok":
        # What the logged first run went through, and the graph that ran, come from the traced worker.
        return replace(row, top_ops=trace.top_ops, first_run_inside=trace.first_run_inside,
                       first_run_log=trace.first_run_log, partition_ops=trace.partition_ops,
                       logged_first_run_s=trace.first_run_s if trace.first_run_inside is not None else None)
    if row.ok:
        return replace(row, status="failed", error=f"traced run: {trace.error}")
    return row


# inspect: read the GraphDef file and size what it holds, without importing it into a graph or running it.
REPEAT_MIN_BYTES = 1024   # smaller tensors repeat legitimately (shapes, axes, scalars)


@dataclass(frozen=True)
class InspectConfig:
    """What the user asked to inspect, and where the outputs go."""

    path: str = GRAPH_PATH.field(help="a GraphDef (.pb binary, .pbtxt text), a SavedModel directory or its "
                                      "saved_model.pb")
    top: int = Option(10, Whole(most=100_000), "largest Const nodes to list").field()
    json: str | None = options.JSON.field()
    strip_constants: str | None = Option(None, optional_path, "write a text copy of the graph with every tensor's "
                                         "contents removed (dtype and shape kept)", metavar="OUT.pbtxt").field()


def inspect_plan(config):
    """Refuse, before anything is read, a path that holds no graph (outputs over it are refused by the API)."""
    files.locate(config.path)


def inspect_graph(config):
    """The Inspection of the graph at config.path; writes the stripped copy when asked."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # nothing runs here, so TensorFlow has nothing to report
    graph_def, source = files.load(config.path)
    found = summarize(graph_def, source, top=config.top)
    if config.strip_constants:
        write_stripped(graph_def, config.strip_constants)
    return found


def _where(function, name):
    """A node's name, after its function's when it is inside one."""
    return name if function is None else f"{function}/{name}"


def _repeats(held):
    """Groups of Const nodes of at least REPEAT_MIN_BYTES holding byte-identical tensors, largest first."""
    candidates = defaultdict(list)
    for function, node, size in held:
        if size >= REPEAT_MIN_BYTES:
            t = node.attr["value"].tensor
            candidates[(t.dtype, tuple(d.size for d in t.tensor_shape.dim), size)].append((function, node))
    groups = []
    for (_, _, size), members in candidates.items():
        if len(members) < 2:
            continue
        same = defaultdict(list)
        for function, node in members:
            digest = hashlib.sha256(node.attr["value"].tensor.SerializeToString(deterministic=True)).digest()
            same[digest].append((function, node.name))
        groups += [{"bytes": size, "copies": len(found), "nodes": [_where(f, n) for f, n in found],
                    "in_functions": sum(f is not None for f, _ in found)} for found in same.values() if len(found) > 1]
    return tuple(sorted(groups, key=lambda g: -g["bytes"] * (g["copies"] - 1)))


def summarize(graph_def, source, top=10):
    """An Inspection of graph_def: computed from the protobuf alone, never imported into a graph or run."""
    tf = import_tensorflow()
    graph_bytes = graph_def.ByteSize()
    located = list(consts.located_nodes(graph_def))
    nodes = [n for _, n in located]
    counts, sizes = Counter(), Counter()
    for n in nodes:
        counts[n.op] += 1
        sizes[n.op] += n.ByteSize()
    held = [(function, n, consts.tensor_bytes(n.attr["value"].tensor)) for function, n in located if n.op == "Const"]
    held.sort(key=lambda c: (-c[2], c[0] is not None, c[1].name))
    largest = []
    for function, node, size in held[:top]:
        t = node.attr["value"].tensor
        largest.append({"name": node.name, "function": function, "dtype": tf.dtypes.as_dtype(t.dtype).name,
                        "shape": [d.size for d in t.tensor_shape.dim], "bytes": size, "node_bytes": node.ByteSize(),
                        "graph_share": node.ByteSize() / graph_bytes})
    return Inspection(
        path=source["path"], format=source["format"], file_bytes=source["file_bytes"], graph_bytes=graph_bytes,
        nodes=len(graph_def.node), function_nodes=len(nodes) - len(graph_def.node), const_nodes=len(held),
        const_bytes=sum(size for _, _, size in held), const_node_bytes=sum(n.ByteSize() for _, n, _ in held),
        headroom_bytes=GRAPHDEF_LIMIT - 1 - graph_bytes,
        op_types=tuple({"op": op, "nodes": c, "bytes": sizes[op]}
                       for op, c in sorted(counts.items(), key=lambda kv: (-kv[1], -sizes[kv[0]], kv[0]))),
        largest_consts=tuple(largest), repeats=_repeats(held),
        elided_consts=sum(consts.is_elided(n.attr["value"].tensor) for _, n, _ in held),
        meta_graph=source.get("meta_graph"),
        tf_version=tf.__version__)


def write_stripped(graph_def, path):
    """Strip graph_def's tensors and write it as text protobuf to path, atomically."""
    from google.protobuf import text_format

    text = text_format.MessageToString(consts.strip_constants(graph_def))
    write_atomic(path, lambda f: f.write(text))


INSPECT = Job(inspect_plan, inspect_graph, Config=InspectConfig)


# unembed: rewrite the graph's large Consts into variables in a worker, then check it in two more.
@dataclass(frozen=True)
class UnembedConfig(Config):
    """The graph to rewrite, where to write it, and whether to check it."""

    out: str = Option(REQUIRED, options.path, "the SavedModel folder to write (new or empty)", short="-o",
                      metavar="OUT").field()
    min_bytes: int = Option(MIN_BYTES, byte_size, "move Consts holding at least SIZE bytes; units B, kB, MB, GB, "
                            "KiB, MiB, GiB", metavar="SIZE", shown="1MiB").field()
    check: bool = Option(False, switch, "run the original and the rewritten graph on the same feeds in fresh "
                         "workers; exit 1 when their outputs differ by more than the dtype's tolerance").field()
    replace: bool = Option(False, switch, "replace OUT when it exists and is not empty (the old one is removed only "
                           "once the new one is in place)").field()


def check_out(config):
    """Refuse an OUT that is a link or a mount point, or that exists and is not empty without --replace (that it
    holds no input and no other output is the API's check of outputs)."""
    if os.path.islink(config.out):
        raise UsageError(f"-o {config.out} is a symbolic link; give the folder it names, or a new one")
    if os.path.ismount(config.out):
        # The finished SavedModel is renamed into place, and a mount point cannot be renamed over.
        raise UsageError(f"-o {config.out} is a mount point; give a folder inside it")
    if os.path.exists(config.out) and not os.path.isdir(config.out):
        raise UsageError(f"-o {config.out} exists and is not a folder")
    folder_takes_a_file(config.out)
    if os.path.isdir(config.out) and os.listdir(config.out) and not config.replace:
        raise UsageError(f"-o {config.out} exists and is not empty; choose a new folder, or --replace to replace it")


def unembed_plan(config):
    """Refuse a bad OUT, then read and check the graph; one rewriting worker, and two more with --check."""
    check_out(config)
    found = interface_of(config)
    return GraphPlan({}, (), workers=1 + 2 * config.check, interface=found, data_held=holds(found))


def _install(written, out):
    """Rename the finished SavedModel into place; an old OUT (--replace) is removed only once the new one is there."""
    old = None
    if os.path.exists(out):
        old = written + ".old"
        os.rename(out, old)
    os.rename(written, out)
    if old:
        shutil.rmtree(old)


def compare_outputs(before_npz, after_npz):
    """(largest |before - after| over every output, that output's tolerance, whether every output is within its own)."""
    worst, tol, within = 0.0, 0.0, True
    with np.load(before_npz) as a, np.load(after_npz) as b:
        for key in a.files:
            ref = a[key]
            diff = max_abs_difference(ref, b[key]) if key in b.files else float("inf")
            within = within and diff <= tolerance(ref.dtype, ref)
            if diff >= worst:
                worst, tol = diff, tolerance(ref.dtype, ref)
    return worst, tol, within


def _check_rewrite(config, found, tmp, progress, timeout):
    """Run the original and the rewritten graph on the same feeds: (before, after, compare_outputs' answer, errors,
    docs)."""
    tag = found.tag or "serve"
    docs, paths = [], []
    for what, path, graph_tag in (("original", found.path, found.tag), ("rewritten", config.out, tag)):
        outputs = os.path.join(tmp, f"{what}.npz")
        t = task(config, found, path=path, tag=graph_tag, outputs_path=outputs)
        docs.append(runner.run_worker(t, f"{what} graph", progress, timeout))
        paths.append(outputs)
    before, after = (Measurement.from_worker(d) for d in docs)
    errors = tuple(f"{w} graph: {m.error}" for w, m in zip(("original", "rewritten"), (before, after))
                   if m.status != "ok")
    return before, after, (None, None, None) if errors else compare_outputs(*paths), errors, docs


def unembed_run(config, plan, progress, timeout=None):
    """Rewrite into a temporary folder beside OUT, rename it into place, and check it when asked."""
    found = plan.interface
    parent = os.path.dirname(os.path.abspath(config.out))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tfgraphs-unembed-", dir=parent)
    try:
        written = os.path.join(tmp, "model")
        t = UnembedTask(path=found.path, out=written, min_bytes=config.min_bytes, tag=found.tag,
                        fetches=encode_fetches(found.fetches), feeds=encode_feeds(found.feeds),
                        signature=config.signature)
        doc = runner.run_worker(t, "rewrite", progress, timeout)
        base = {"path": config.path, "out": config.out, "min_bytes": config.min_bytes}
        if doc.get("status") != "ok":
            if os.strerror(errno.ENOSPC) in str(doc.get("error")):
                raise UsageError(f"cannot write {config.out}: {os.strerror(errno.ENOSPC)} (nothing was written)")
            tf_version, machine = runner.envelope([doc])
            return Unembedding(**base, errors=(f"rewrite: {doc.get('error')}",), tf_version=tf_version,
                               machine=machine)
        _install(written, config.out)
        before = after = None
        compared, errors, ran = (None, None, None), (), [doc]
        if config.check:
            before, after, compared, errors, docs = _check_rewrite(config, found, tmp, progress, timeout)
            ran += docs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tf_version, machine = runner.envelope(ran)
    return Unembedding(**base, before=side(doc["before"], before), after=side(doc["after"], after),
                       moved=tuple(doc["moved"]), left=tuple(doc["left"]), checked=config.check,
                       max_abs_err=compared[0], tolerance=compared[1], within=compared[2],
                       unembed_s=doc.get("unembed_s"),
                       unembed_peak_rss_bytes=doc.get("peak_rss_bytes"), unembed_phases=doc.get("phases", {}),
                       tf_rss_bytes=doc.get("tf_rss_bytes"), errors=errors, tf_version=tf_version,
                       machine=machine)


UNEMBED = Job(unembed_plan, unembed_run, Config=UnembedConfig)
