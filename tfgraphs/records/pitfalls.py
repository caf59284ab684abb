"""The pitfalls rows: one lesson on one variant in one worker, and its cases as measured."""

import math
from dataclasses import asdict, dataclass

from tfgraphs.records.possible import GRAPH_BYTES, Range, ranged
from tfgraphs.records.rows import known

# The numbers of a first run's log as spec.tflog.stages parses them: a pass's change in nodes may go either way.
LOGGED = {"seconds": Range(), "nodes_after": Range(), "nodes_change": Range(-math.inf), "item": Range(),
          "foldable": Range(), "nodes": Range()}


@dataclass(frozen=True)
class Case:
    """One case of a lesson; only the fields its kind measures are set (the rest stay None and are not saved)."""

    case: str
    seconds: float | None = ranged()   # a timed case (the median when repeated)
    runs_s: tuple | None = ranged()    # every run of a repeated case
    step_s: tuple | None = ranged()    # growth: each step's time
    extend_s: tuple | None = ranged()  # growth: each step's Session._extend_graph alone, inside step_s
    nodes: tuple | None = ranged()     # growth: the graph's operations after each step
    rss_bytes: tuple | None = ranged()   # growth: resident memory after each step
    bytes: int | None = ranged()       # a saved artifact's size (a checkpoint is not one protobuf: no 2 GiB limit)
    holds_data: bool | None = None     # whether the raw bytes of X appear in it
    probe_batch: int | None = ranged(least=1)   # the .meta exported again at this batch, to get bytes per example
    probe_bytes: int | None = ranged(**GRAPH_BYTES)   # that .meta: one MetaGraphDef protobuf
    graph_bytes: int | None = ranged(**GRAPH_BYTES)   # placeholder-default and growth: serialized GraphDef
    const_bytes: int | None = ranged()   # and the bytes held in its Const tensors
    computes: dict | None = None       # partition graphs: {Conv2D, AvgPool, Relu: still computed}
    replaced_by_const: tuple | None = None   # partition graphs: the Const nodes folding made
    later_s: float | None = ranged()   # folding: the second run
    stateful: tuple | None = None      # folding: op types in the graph that ran marked stateful by the op registry
    fed: int | None = ranged()         # folding: _Arg nodes (fed tensors) in the graph that ran
    folder_log: tuple | None = ranged(keys=LOGGED)   # folding: the first run's log, parsed (spec.tflog.stages)
    fetched_bytes: int | None = ranged()   # folding: bytes of the fetched tensor
    kernels: tuple | None = None       # pruning: the kernel types a traced run's step stats list
    returned_none: bool | None = None  # pruning: sess.run returned None (an op was fetched)
    counter_after: int | None = ranged()   # pruning: the assign_add's variable, read after the run
    address_mod_64: int | None = ranged(most=63)   # feed-alignment: where the fed array's data starts, past 64 bytes
    copy_s: float | None = ranged()    # feed-alignment: one NumPy copy of the fed array (median of 3)

    def to_dict(self):
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        out = known(cls, d)
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in out.items()})


@dataclass(frozen=True)
class LessonRun:
    """One lesson on one variant: its cases in the order they ran, or why it failed."""

    lesson: str
    variant: str
    status: str = "ok"
    error: str | None = None
    cases: tuple = ()
    finalize_error: str | None = None   # graph-growth: what graph.finalize() made of the leaky step
    worker_start: str | None = None     # "forked" or "fresh" (children.start); None in documents before it

    @property
    def ok(self):
        return self.status == "ok"

    @property
    def label(self):
        return f"{self.lesson} {self.variant}"

    def case(self, name):
        """The case called name, or None."""
        return next((c for c in self.cases if c.case == name), None)

    @classmethod
    def refused(cls, lesson, variant, reason):
        """A failed lesson that was never run, saying why."""
        return cls(lesson, variant, status="failed", error=reason)

    def to_dict(self):
        d = {"lesson": self.lesson, "variant": self.variant, "status": self.status, "error": self.error,
             "cases": [c.to_dict() for c in self.cases]}
        if self.finalize_error is not None:
            d["finalize_error"] = self.finalize_error
        if self.worker_start is not None:
            d["worker_start"] = self.worker_start
        return d

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        out = known(cls, d)
        if out.get("status", "ok") == "ok" and "cases" not in d:
            raise KeyError("cases")   # every lesson that ran wrote its cases, even none: without them it says nothing
        out["cases"] = tuple(Case.from_dict(c) for c in d.get("cases") or ())
        return cls(**out)
