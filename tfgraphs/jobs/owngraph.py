"""explain --graph: a user's GraphDef or SavedModel under each session preset, timed and traced in fresh workers."""

import math
from dataclasses import asdict, dataclass, replace

from tfgraphs.graphdef.consts import const_bytes
from tfgraphs.graphdef.interface import resolve
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.explain import ExplainedGraph, attribute
from tfgraphs.records.results import ExplainResults
from tfgraphs.records.rows import Measurement, Row
from tfgraphs.records.judge import FEWEST, RANK_SUM
from tfgraphs.spec import common
from tfgraphs.spec.owngraph import encode_feeds, encode_fetches, graph_name
from tfgraphs.spec.tasks import GraphTask
from tfgraphs.tfimport import import_tensorflow


@dataclass(frozen=True)
class Config:
    """Which graph, how to feed and fetch it, and the presets to try."""

    path: str = common.GRAPH_PATH.field()
    runs: int = common.RUNS.field()
    # The least at which the rank test can tell two presets' first runs apart, as for the seed network.
    trials: int = common.TRIALS.field(default=FEWEST[RANK_SUM])
    seed: int = common.SEED.field()
    presets: tuple = common.CHOSEN_PRESETS.field()
    tag: str = common.TAG.field()
    signature: str = common.SIGNATURE.field()
    dims: tuple = common.FEED.field()      # ((input name, (d1, d2, ...)), ...)
    fetches: tuple = common.FETCH.field()
    int_high: int = common.INT_HIGH_OPTION.field()

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
    found = [GraphTask(path=config.path, name=graph_name(config.path), fetches="", preset=p, mode="traced", trace_dir=trace_dir,
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
