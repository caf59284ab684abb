"""The rows of every command as frozen records: what one worker measured and a variant's row over its trials
(compare, explain, sweep), one shapes mode's run, and one pitfalls lesson's run with its cases."""

import math
from dataclasses import asdict, dataclass, field, replace

from tfgraphs.records.judge import median_or_none
from tfgraphs.records.schema import GRAPH_BYTES, Range, known, ranged, read_worker


@dataclass(frozen=True)
class Measurement:
    """What one worker measured; a Row holds the median of its trials in the same fields."""

    status: str = "ok"
    error: str | None = None
    graph_bytes: int | None = ranged(**GRAPH_BYTES)
    const_bytes: int | None = ranged()
    nodes: int | None = ranged()
    build_s: float | None = ranged()
    serialize_s: float | None = ranged()
    session_s: float | None = ranged()
    init_s: float | None = ranged()
    first_run_s: float | None = ranged()
    runs_s: tuple = ranged(default=())
    peak_rss_bytes: int | None = ranged()
    rss_bytes: dict = ranged(factory=dict)
    max_abs_err: float | None = ranged(unbounded=True)   # inf: an output of another shape; NaN: holding NaN
    top_ops: tuple = ()
    import_s: float | None = ranged()   # the worker's own start-up: importing TensorFlow, not a phase of the graph
    worker_start: str | None = None   # "forked" from a process that imported TensorFlow, or "fresh" (processes.start)
    # Added for remote sessions; None in documents written before them, and left out of the JSON while None.
    target: str | None = None              # "" in-process, else the grpc:// URL the session ran on
    returns: str | None = None             # what each run returned: "output" or "sum"
    bytes_fed_per_run: int | None = ranged()
    bytes_fetched_per_run: int | None = ranged()
    fed_address_mod_64: int | None = ranged(most=63)   # where the largest fed array's data starts, past 64 bytes
    network_device: str | None = None      # set in a two-task cluster
    data_device: str | None = None         # where X lived, in a two-task cluster
    traced_between_tasks_bytes: int | None = ranged()   # RecvTensor bytes from another task in one traced run
    traced_run_s: float | None = ranged()
    folded: bool | None = None      # embedded X only: no Conv2D executed after the first run (None: not measured)
    # TensorFlow's own reports, from an untimed run: the partition graphs that ran, and the first run's optimizer log.
    partition_ops: dict | None = ranged()     # {op type: nodes} over the partition graphs
    partition_computes: dict | None = None    # {Conv2D, AvgPool, Relu: a node computing it is in the partition graphs}
    replaced_by_const: tuple | None = None    # Const nodes folding made: not Consts in the user's graph
    partition_stateful: tuple | None = None   # op types there that TensorFlow's op registry marks stateful
    first_run_inside: tuple | None = None     # [{stage, seconds, source, ...}] parsed from first_run_log
    first_run_log: tuple | None = None        # the raw log lines of the asked-for modules, as TensorFlow printed them
    logged_first_run_s: float | None = ranged()   # the logged worker's own first run, which the stages are part of

    @classmethod
    def from_dict(cls, d):
        """Build from a saved file's dict, ignoring keys this version does not know."""
        evidence = {k: tuple for k in _EVIDENCE_TUPLES if d.get(k) is not None}
        return cls(**known(cls, d, runs_s=tuple, top_ops=tuple, **evidence))

    @classmethod
    def from_worker(cls, d):
        """Build from a worker's document, read strictly: a key no field knows fails the row, naming it."""
        return cls.from_dict(read_worker(cls, d, given=WRITTEN_FILES))

    def to_dict(self):
        return _set_or_old(asdict(self))


# What a traced worker wrote where the command line asked (--trace, --tensorboard): named there, not kept in rows.
WRITTEN_FILES = ("trace_files", "tensorboard_dir")
REMOTE_FIELDS = ("target", "returns", "bytes_fed_per_run", "bytes_fetched_per_run", "fed_address_mod_64",
                 "network_device", "data_device", "traced_between_tasks_bytes", "traced_run_s")


# Fields aggregated across trials by their median, and those of them kept as whole numbers.
MEDIAN_FIELDS = ("graph_bytes", "const_bytes", "nodes", "build_s", "serialize_s", "session_s",
                 "init_s", "first_run_s", "peak_rss_bytes", "max_abs_err", "import_s")
INT_MEDIANS = ("graph_bytes", "const_bytes", "nodes", "peak_rss_bytes")


EVIDENCE_FIELDS = ("partition_ops", "partition_computes", "replaced_by_const", "partition_stateful",
                   "first_run_inside", "first_run_log", "logged_first_run_s")
_EVIDENCE_TUPLES = ("replaced_by_const", "partition_stateful", "first_run_inside", "first_run_log")

# Keys added after the format was first written: left out when unset, so older documents write back as they were read.
_ADDED_KEYS = ("import_s", "worker_start", "activation_bytes", "folded", *REMOTE_FIELDS, *EVIDENCE_FIELDS)


def _set_or_old(d):
    """d without the keys added to the format later that are unset."""
    return {k: v for k, v in d.items() if v is not None or k not in _ADDED_KEYS}


@dataclass(frozen=True)
class Row(Measurement):
    """One variant (under one preset): the median over its trials, with every trial kept."""

    variant: str = ""
    preset: str = "default"
    trials: tuple = ()
    batch: int | None = ranged(least=1)   # set when one report spans several batches (sweep)
    activation_bytes: int | None = ranged()   # conv, pool and relu output bytes, from shapes and dtype

    @classmethod
    def from_trials(cls, variant, trials, preset="default"):
        """Aggregate trials: medians over the ok ones, later runs pooled; failed if any trial failed."""
        ok = [t for t in trials if t.status == "ok"]
        failed = [(i, t) for i, t in enumerate(trials, 1) if t.status != "ok"]
        agg = {name: median_or_none(getattr(t, name) for t in ok) for name in MEDIAN_FIELDS}
        for name in INT_MEDIANS:
            agg[name] = None if agg[name] is None else int(agg[name])
        rss = {}
        # Phase by phase from the same workers: those that measured every phase when there are any.
        whole = [t for t in ok if t.peak_rss_bytes is not None] or ok
        for phase in dict.fromkeys(p for t in whole for p in t.rss_bytes):
            rss[phase] = int(median_or_none(t.rss_bytes.get(phase) for t in whole))
        error = None
        if failed:
            i, t = failed[0]
            error = t.error if len(trials) == 1 else f"trial {i}/{len(trials)}: {t.error}"
        # A trial's remote fields are the same in every trial but the target (a fresh server each); the first says.
        remote = {name: getattr((ok or trials or [Measurement()])[0], name) for name in REMOTE_FIELDS}
        remote["traced_run_s"] = median_or_none(t.traced_run_s for t in ok)
        regimes = {t.folded for t in ok if t.folded is not None}   # a first-run trial does not look
        # The graph that ran is the same in every trial; the first trial's report of it stands for all.
        evidence = {name: getattr(ok[0], name) for name in EVIDENCE_FIELDS} if ok else {}
        return cls(status="failed" if failed else "ok", error=error, **evidence,
                   folded=regimes.pop() if len(regimes) == 1 else None,
                   runs_s=tuple(s for t in ok for s in t.runs_s), rss_bytes=rss,
                   top_ops=ok[0].top_ops if ok else (), variant=variant, preset=preset,
                   trials=tuple(trials), **agg, **remote)

    @classmethod
    def refused(cls, variant, reason, batch=None):
        """A failed row for a variant that was never run, saying why."""
        return cls(status="failed", error=reason, variant=variant, batch=batch)

    @property
    def ok(self):
        return self.status == "ok"

    @property
    def later_median_s(self):
        """Median of the runs after the first, or None without any."""
        return median_or_none(self.runs_s)

    @property
    def first_run_excess_s(self):
        """What only the first run pays: the median over trials of each worker's first run minus its own median later
        run (first run minus the median later run for a row without trials); None without both."""
        later = self.later_median_s
        if not self.ok or self.first_run_s is None or later is None:
            return None
        # The same samples the first-run rule judges, so a page gives one number per difference.
        return median_or_none(self.first_run_excesses_s) if self.first_run_excesses_s else self.first_run_s - later

    @property
    def first_runs_s(self):
        """The first run of every ok trial: one sample per fresh worker."""
        return tuple(t.first_run_s for t in self.trials if t.status == "ok" and t.first_run_s is not None)

    @property
    def later_medians_s(self):
        """Each ok trial's median later run: one sample per fresh worker, as two variants' later runs are compared
        (runs of one worker are not independent of each other). A row without trials gives its one median."""
        medians = tuple(median_or_none(t.runs_s) for t in self.trials if t.status == "ok" and t.runs_s)
        return medians or ((self.later_median_s,) if self.runs_s else ())

    @property
    def first_run_excesses_s(self):
        """Each ok trial's first run minus its own median later run: one sample per fresh worker."""
        return tuple(t.first_run_s - median_or_none(t.runs_s) for t in self.trials
                     if t.status == "ok" and t.first_run_s is not None and t.runs_s)

    @property
    def label(self):
        """The variant, with its preset when not the default, and remote and a summed fetch when so."""
        return (self.variant + (f" [{self.preset}]" if self.preset != "default" else "")
                + (" remote" if self.remote else "") + (" (sum)" if self.returns == "sum" else ""))

    @property
    def remote(self):
        return bool(self.target)

    def to_dict(self):
        d = {"name": self.variant, **_set_or_old(asdict(self))}
        d["trials"] = [t.to_dict() for t in self.trials]
        return d

    @classmethod
    def from_dict(cls, d):
        trials = tuple(Measurement.from_dict(t) for t in d.get("trials", ()))
        base = super().from_dict({**d, "variant": d.get("variant") or d.get("name", ""), "trials": ()})
        return replace(base, trials=trials)


def khz_per_call(batch, lengths, times_s):
    """The throughput of each call, batch * length / 1000 / s, in kHz: one per length of one pass."""
    return tuple(batch * n / 1000 / s for n, s in zip(lengths, times_s))


@dataclass(frozen=True)
class ModeRun:
    """One shapes mode in one worker: every call's time, per pass and per length, and what it traced."""

    mode: str
    status: str = "ok"
    error: str | None = None
    device: str | None = None
    traces: int | None = ranged()   # tf.function traces; for graph mode, the graphs built
    first_call_traces: int | None = ranged()   # the same count right after the worker's very first call
    times_s: tuple = ranged(default=())   # one tuple per pass, one time per length
    khz: tuple = ranged(default=())       # per pass: median over lengths after the first of batch * length / 1000 / s
    env: dict = field(default_factory=dict)
    max_rel_err: float | None = ranged()   # an ok worker's is checked against its tolerance, so never NaN
    worker_start: str | None = None   # "forked" or "fresh" (processes.start); None in documents before it

    @property
    def ok(self):
        return self.status == "ok"

    @classmethod
    def from_worker(cls, mode, doc, batch, lengths):
        """A record from a worker's document, with the throughput computed here."""
        times = tuple(tuple(p) for p in doc.get("times_s") or ())
        # The first length is left out: its first call is the worker's start-up, and pass 2 drops it to stay paired.
        khz = tuple(median_or_none(khz_per_call(batch, lengths[1:], p[1:])) for p in times)
        return cls.from_dict({**doc, "mode": mode, "times_s": times, "khz": khz})

    def to_dict(self):
        d = {k: v for k, v in asdict(self).items() if v is not None or k not in ("worker_start", "first_call_traces")}
        return {**d, "times_s": [list(p) for p in self.times_s], "khz": list(self.khz)}

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        return cls(**known(cls, d, times_s=lambda ts: tuple(tuple(p) for p in ts), khz=tuple))


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
    worker_start: str | None = None     # "forked" or "fresh" (processes.start); None in documents before it

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
