"""A worker's whole job as one frozen record (a command's own tasks are beside its spec): the parent turns it into flags, the worker parses them back.

The worker answers with one JSON document on stdout and tells the parent its progress in PHASE_PREFIX lines on stderr.
"""

import argparse
import os
from dataclasses import MISSING, dataclass, field, fields, replace
from typing import ClassVar

from tfgraphs.spec import tflog
from tfgraphs.spec.network import DTYPES
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.remote import FETCHES
from tfgraphs.spec.variants import VARIANTS

PHASE_PREFIX = "@phase "
TRACED_RUNS = ("first", "second")   # the runs a traced task writes a Chrome trace of


def traced_writes(task, stem, board_name):
    """(the Chrome trace files, the TensorBoard folder or None) a task writes: STEM.first-run.trace.json and the
    second run's in its trace_dir, and the folder board_name in its tensorboard_dir, written whole."""
    traces = tuple(os.path.join(task.trace_dir, f"{stem}.{run}-run.trace.json") for run in TRACED_RUNS
                   ) if task.trace_dir else ()
    return traces, os.path.join(task.tensorboard_dir, board_name) if task.tensorboard_dir else None


def choice(names):
    return field(metadata={"choices": tuple(names)})


@dataclass(frozen=True)
class SeedTask:
    """One measurement of the seed network: `timed` phases, the phases up to the `first-run` alone, `traced` runs,
    the 2 GiB tensor `limit` probe, or `single-thread` runs (one intra-op and one inter-op thread, as the classic
    constant folder evaluates)."""

    MODULE: ClassVar[str] = "tfgraphs.worker.seed"
    variant: str = choice(VARIANTS)
    batch: int = field()
    dtype: str = field(default="float64", metadata={"choices": DTYPES})
    runs: int = 10
    seed: int = 0
    preset: str = field(default="default", metadata={"choices": tuple(PRESETS)})
    mode: str = field(default="timed", metadata={"choices": ("timed", "first-run", "traced", "limit",
                                                             "single-thread")})
    trace_dir: str | None = None
    tensorboard_dir: str | None = None
    fetch: str = field(default="output", metadata={"choices": FETCHES})
    target: str | None = None           # a grpc:// session target; None runs in-process
    network_device: str | None = None   # e.g. /job:worker/task:0 in a two-task cluster
    data_device: str | None = None      # where the variable variant's X lives, e.g. /job:ps/task:0

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.STAGES_ENV if self.mode == "traced" else None

    def headline(self):
        """This task measuring only the phases up to its first run (a timed task; any other mode as it is)."""
        return replace(self, mode="first-run") if self.mode == "timed" else self

    def writes(self):
        """(trace files, TensorBoard folder) the task writes; a remote run's traces sit beside the in-process ones."""
        return traced_writes(self, f"{self.variant}.{self.preset}" + (".remote" if self.target else ""), self.variant)


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


def _flag(f):
    return "--" + f.name.replace("_", "-")


def to_argv(task):
    """`python` arguments that run the task's worker: -m MODULE, then one flag per field that is set."""
    argv = ["-m", task.MODULE]
    for f in fields(task):
        value = getattr(task, f.name)
        if value is not None:
            argv += [_flag(f), str(value)]
    return argv


def from_argv(cls, argv=None):
    """The task a worker was started with, parsed from the flags to_argv wrote."""
    p = argparse.ArgumentParser(prog=f"python -m {cls.MODULE}", description=cls.__doc__)
    for f in fields(cls):
        required = f.default is MISSING
        p.add_argument(_flag(f), dest=f.name, type=int if f.type is int else str, required=required,
                       default=None if required else f.default, choices=f.metadata.get("choices"))
    return cls(**vars(p.parse_args(argv)))
