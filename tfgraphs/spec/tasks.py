"""The tasks of the workers that measure no seed network: a server, a user's graph, a rewrite of it (the seed
network's task is spec.seed's, and shapes' and pitfalls' beside their specs); spec.protocol carries each to its worker."""

import os
from dataclasses import dataclass, field
from typing import ClassVar

from tfgraphs.spec import tflog
from tfgraphs.spec.presets import PRESETS

TRACED_RUNS = ("first", "second")   # the runs a traced task writes a Chrome trace of


def traced_writes(task, stem, board_name):
    """(the Chrome trace files, the TensorBoard folder or None) a task writes: STEM.first-run.trace.json and the
    second run's in its trace_dir, and the folder board_name in its tensorboard_dir, written whole."""
    traces = tuple(os.path.join(task.trace_dir, f"{stem}.{run}-run.trace.json") for run in TRACED_RUNS
                   ) if task.trace_dir else ()
    return traces, os.path.join(task.tensorboard_dir, board_name) if task.tensorboard_dir else None


@dataclass(frozen=True)
class ServerTask:
    """One tf.distribute.Server of a cluster, serving until SIGTERM or SIGINT."""

    MODULE: ClassVar[str] = "tfgraphs.worker.server"
    cluster: str = field()   # job=host:port,...;job=... (spec.remote.cluster_text)
    job: str = field()
    task: int = 0


@dataclass(frozen=True)
class GraphTask:
    """One measurement of a user's graph: `timed` phases (outputs saved when asked) or `traced` runs."""

    MODULE: ClassVar[str] = "tfgraphs.worker.owngraph"
    path: str = field()
    name: str = field()             # how rows, traces and TensorBoard name the graph
    fetches: str = field()          # spec.owngraph.encode_fetches
    feeds: str = ""                 # spec.owngraph.encode_feeds
    tag: str | None = None          # set: path is a SavedModel, loaded with this tag
    runs: int = 10
    seed: int = 0
    int_high: int = 2
    preset: str = field(default="default", metadata={"choices": tuple(PRESETS)})
    mode: str = field(default="timed", metadata={"choices": ("timed", "traced")})
    outputs_path: str | None = None  # timed: save the first run's outputs here (.npz)
    trace_dir: str | None = None
    tensorboard_dir: str | None = None

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.STAGES_ENV if self.mode == "traced" else None

    def writes(self):
        """(trace files, TensorBoard folder) the task writes, named after the graph."""
        return traced_writes(self, f"{self.name}.{self.preset}", self.name)


@dataclass(frozen=True)
class UnembedTask:
    """Rewrite a graph's large Consts into variables, writing a SavedModel to a new folder."""

    MODULE: ClassVar[str] = "tfgraphs.worker.unembed"
    path: str = field()
    out: str = field()
    min_bytes: int = field()
    fetches: str = field()
    signature: str = field()        # the signature's name in the new SavedModel
    feeds: str = ""
    tag: str | None = None          # set: path is a SavedModel, read with this tag
