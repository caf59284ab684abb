"""Every command's typed record: what one worker measured, a variant's row over its trials (compare, explain,
sweep), one shapes mode's run and one pitfalls lesson's run with its cases; then a whole run's results as one
immutable record per command (its Config, its rows, its other sections), and the versioned JSON document each
reads from and writes to."""

import math
import platform
from dataclasses import asdict, dataclass, field, fields, replace
from typing import ClassVar

from tfgraphs.errors import UsageError
from tfgraphs.records.explain import ExplainedGraph, check_sections
from tfgraphs.records.judge import median_or_none
from tfgraphs.records.one_record import Inspection, Unembedding, Watching
from tfgraphs.records.schema import (GRAPH_BYTES, SCHEMA, SECONDS, TOOL, Provenance, Range, check_agrees, check_config,
                                     check_object, check_record, check_type, envelope, known, provenance,
                                     provenance_of, ranged, read_worker, shown, upgraded)
from tfgraphs.records.sweep import Extra
from tfgraphs.spec.pitfalls import Config as PitfallsConfig
from tfgraphs.spec.network import Config as SeedConfig
from tfgraphs.spec.network import ExplainConfig, SweepConfig
from tfgraphs.spec.options import optional_path, path
from tfgraphs.spec.shapes import Config as ShapesConfig


@dataclass(frozen=True)
class Measurement:
    """What one worker measured; a Row holds the median of its trials in the same fields."""

    status: str = "ok"
    error: str | None = None
    graph_bytes: int | None = ranged(**GRAPH_BYTES)
    const_bytes: int | None = ranged()
    nodes: int | None = ranged()
    build_s: float | None = ranged(**SECONDS)
    serialize_s: float | None = ranged(**SECONDS)
    session_s: float | None = ranged(**SECONDS)
    init_s: float | None = ranged(**SECONDS)
    first_run_s: float | None = ranged(**SECONDS)
    runs_s: tuple = ranged(**SECONDS, default=())
    peak_rss_bytes: int | None = ranged()
    rss_bytes: dict = ranged(factory=dict)
    max_abs_err: float | None = ranged(unbounded=True)   # inf: an output of another shape; NaN: holding NaN
    top_ops: tuple = ranged(keys={"first_ms": Range(), "later_ms": Range()}, default=())   # ({op, type, ...}, ...)
    # The worker's own start-up: importing TensorFlow, not a phase of the graph.
    import_s: float | None = ranged(**SECONDS)
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
    traced_run_s: float | None = ranged(**SECONDS)
    folded: bool | None = None      # embedded X only: no Conv2D executed after the first run (None: not measured)
    # TensorFlow's own reports, from an untimed run: the partition graphs that ran, and the first run's optimizer log.
    partition_ops: dict | None = ranged()     # {op type: nodes} over the partition graphs
    partition_computes: dict | None = None    # {Conv2D, AvgPool, Relu: a node computing it is in the partition graphs}
    replaced_by_const: tuple | None = None    # Const nodes folding made: not Consts in the user's graph
    partition_stateful: tuple | None = None   # op types there that TensorFlow's op registry marks stateful
    first_run_inside: tuple | None = None     # [{stage, seconds, source, ...}] parsed from first_run_log
    first_run_log: tuple | None = None        # the raw log lines of the asked-for modules, as TensorFlow printed them
    logged_first_run_s: float | None = ranged(**SECONDS)   # the logged worker's own first run, holding the stages

    @classmethod
    def from_dict(cls, d):
        """Build from a saved file's dict, ignoring keys this version does not know."""
        check_object(cls, d)
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
        check_object(cls, d)
        check_type(f"{cls.__name__}.trials", d.get("trials", ()), tuple)
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
    times_s: tuple = ranged(**SECONDS, nested=True, default=())   # one tuple per pass, one time per length
    khz: tuple = ranged(default=())       # per pass: median over lengths after the first of batch * length / 1000 / s
    env: dict = field(default_factory=dict)
    max_rel_err: float | None = ranged()   # an ok worker's is checked against its tolerance, so never NaN
    worker_start: str | None = None   # "forked" or "fresh" (processes.start); None in documents before it
    control_s: tuple = ranged(default=())   # a fixed NumPy product timed between the calls: the worker's own speed
    trial: int | None = ranged(least=1)     # which of the mode's workers, when there were several

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
        later = ("worker_start", "first_call_traces", "trial")
        d = {k: v for k, v in asdict(self).items() if (v is not None or k not in later) and (k != "control_s" or v)}
        return {**d, "times_s": [list(p) for p in self.times_s], "khz": list(self.khz),
                **({"control_s": list(self.control_s)} if self.control_s else {})}

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        return cls(**known(cls, d, times_s=lambda ts: tuple(tuple(p) for p in ts), khz=tuple, control_s=tuple))


# The numbers of a first run's log as spec.tflog.stages parses them: a pass's change in nodes may go either way.
LOGGED = {"seconds": Range(), "nodes_after": Range(), "nodes_change": Range(-math.inf), "item": Range(),
          "foldable": Range(), "nodes": Range()}


@dataclass(frozen=True)
class Case:
    """One case of a lesson; only the fields its kind measures are set (the rest stay None and are not saved)."""

    case: str
    seconds: float | None = ranged(**SECONDS)   # a timed case (the median when repeated)
    runs_s: tuple | None = ranged(**SECONDS)    # every run of a repeated case
    step_s: tuple | None = ranged(**SECONDS)    # growth: each step's time
    extend_s: tuple | None = ranged(**SECONDS)  # growth: each step's Session._extend_graph alone, inside step_s
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
    later_s: float | None = ranged(**SECONDS)   # folding: the second run
    stateful: tuple | None = None      # folding: op types in the graph that ran marked stateful by the op registry
    fed: int | None = ranged()         # folding: _Arg nodes (fed tensors) in the graph that ran
    folder_log: tuple | None = ranged(keys=LOGGED)   # folding: the first run's log, parsed (spec.tflog.stages)
    fetched_bytes: int | None = ranged()   # folding: bytes of the fetched tensor
    kernels: tuple | None = None       # pruning: the kernel types a traced run's step stats list
    returned_none: bool | None = None  # pruning: sess.run returned None (an op was fetched)
    counter_after: int | None = ranged()   # pruning: the assign_add's variable, read after the run
    address_mod_64: int | None = ranged(most=63)   # feed-alignment: where the fed array's data starts, past 64 bytes
    copy_s: float | None = ranged(**SECONDS)    # feed-alignment: one NumPy copy of the fed array (median of 3)

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


# Config keys a document may lack, written before they were kept: the remote keys (absent: in-process only) and
# shapes' switch_modes; trials and full_trials are read below. Every other key every document has held.
LATER_KEYS = ("target", "baseline", "returns", "place", "connect_timeout", "switch_modes")
# Fields a config holds but its document never saves: a sweep's batch is each row's.
UNSAVED = {SweepConfig: ("batch",)}


def read_config(config_type, saved):
    """config_type from a saved config: each of its fields the document holds (lists as tuples), and for one it
    lacks, what documents written before that field was kept meant; KeyError for a field every document holds,
    ValueError for a value its field's type does not allow."""
    kinds = {f.name: f.type for f in fields(config_type)}
    names = set(kinds)
    held = {k: tuple(v) if isinstance(v, list) else v for k, v in saved.items() if k in names}
    options = {f.name: f.metadata["option"] for f in fields(config_type) if "option" in f.metadata}
    for name, value in held.items():
        check_type(f"config.{name}", value, kinds[name])
        _check_option(name, value, options.get(name))
    # Before --trials a run had one trial; before --full-trials every trial measured every phase.
    if "trials" in names:
        held.setdefault("trials", 1)
    if "full_trials" in names:
        held.setdefault("full_trials", held["trials"])
    # Before later runs were timed in every trial, only the full trials timed them.
    if "later_every_trial" in names:
        held.setdefault("later_every_trial", False)
    lacking = sorted(names - set(held) - set(LATER_KEYS) - set(UNSAVED.get(config_type, ())))
    if lacking:
        raise KeyError(lacking[0])
    return config_type(**held)


def _check_option(name, value, option):
    """ValueError, in the option's own words, for a saved config value its option refuses from a user."""
    if option is None or value is None or option.check in (path, optional_path):
        return   # a path is checked when a command is given it, against the files then
    try:
        option.check(name, list(value) if isinstance(value, tuple) else value)
    except UsageError as exc:
        raise ValueError(f"config.{name}: {exc}") from None


@dataclass(frozen=True)
class Results(Provenance):
    """A whole run of a command that measures rows: what was asked, on what machine, and its rows."""

    command: ClassVar[str]
    key: ClassVar[str]        # the document key its rows are kept under
    config_type: ClassVar[type]
    row_type: ClassVar[type] = Row
    config: object
    rows: tuple
    tf_version: str | None = None
    python: str = platform.python_version()
    machine: dict = field(default_factory=dict)

    def __init_subclass__(cls, command=None, key=None, config_type=None, row_type=Row, **kwargs):
        """A command's Results, declared by its class's keywords: class CompareResults(Results, command=...)."""
        super().__init_subclass__(**kwargs)
        if command is not None:
            cls.command, cls.key, cls.config_type, cls.row_type = command, key, config_type, row_type

    def sections(self):
        """The document's sections beside its config and rows, as saved."""
        return {}

    @classmethod
    def read_config(cls, saved):
        """The command's Config from the document's."""
        return read_config(cls.config_type, saved)

    @classmethod
    def read_sections(cls, d):
        """The typed fields of the document's other sections (none unless the command has them)."""
        return {}

    def to_dict(self):
        return {**envelope(self.command), **provenance(self), "tf_version": self.tf_version,
                "python": self.python, "machine": self.machine, "config": self.config.to_dict(),
                self.key: [r.to_dict() for r in self.rows], **self.sections()}

    @classmethod
    def from_dict(cls, d):
        for name, kind in ((cls.key, list), ("config", dict), ("machine", dict)):
            if name in d and not isinstance(d[name], kind):
                raise ValueError(f"{name} is {shown(d[name])[:40]}, not {'a list' if kind is list else 'an object'}")
        if cls.row_type is Row:
            for r in d[cls.key]:
                _has_row_keys(r)
        rows = tuple(cls.row_type.from_dict(r) for r in d[cls.key])
        check_config(d["config"])
        for i, row in enumerate(rows):
            check_record(row, f"{cls.key}[{i}].")
            if isinstance(row, Row):
                check_agrees(row, f"{cls.key}[{i}]", MEDIAN_FIELDS, INT_MEDIANS)
        return cls(config=cls.read_config(d["config"]), rows=rows, tf_version=d.get("tf_version"),
                   python=d.get("python", ""), machine=d.get("machine", {}), **cls.read_sections(d),
                   **provenance_of(d))


@dataclass(frozen=True)
class CompareResults(Results, command="compare", key="variants", config_type=SeedConfig):
    """compare's results: the seed network's Config and a row per variant and placement."""


@dataclass(frozen=True)
class ExplainResults(Results, command="explain", key="runs", config_type=ExplainConfig):
    """explain's results: a row per variant (or the user's graph) and preset, and the first run's attribution."""

    attribution: tuple = ()           # per row group, the first run's excess split among the optimizers
    single_thread: dict | None = None  # one single-threaded evaluation of the network, when it ran

    def sections(self):
        return {"attribution": list(self.attribution),
                **({"single_thread": self.single_thread} if self.single_thread is not None else {})}

    @classmethod
    def read_config(cls, saved):
        # A user's graph is explained with its path; the seed network without one.
        return ExplainedGraph.from_dict(saved) if "path" in saved else read_config(cls.config_type, saved)

    @classmethod
    def read_sections(cls, d):
        check_sections(d)
        return {"attribution": tuple(d.get("attribution") or ()), "single_thread": d.get("single_thread")}


@dataclass(frozen=True)
class SweepResults(Results, command="sweep", key="rows", config_type=SweepConfig):
    """sweep's results: a row per batch and variant, the line fitted to each variant's graph bytes, and the limit
    put to TensorFlow."""

    fits: tuple = ()                  # Fit per variant
    tf_error: dict | None = None      # what TensorFlow said at the first batch past the predicted limit

    def sections(self):
        return {"fit": [f.to_dict() for f in self.fits], "tf_error": self.tf_error}

    @classmethod
    def read_sections(cls, d):
        found = Extra.from_dict(d)
        check_record(found)
        return {"fits": found.fit, "tf_error": found.tf_error}


@dataclass(frozen=True)
class ShapesResults(Results, command="shapes", key="modes", config_type=ShapesConfig, row_type=ModeRun):
    """shapes' results: a run per mode and switch setting, and which switch the device has."""

    switch: str | None = None         # the per-shape switch the switch modes turned off
    order: str | None = None          # "interleaved": the modes' passes ran in turns

    def sections(self):
        return {k: v for k, v in (("switch", self.switch), ("order", self.order)) if v is not None}

    @classmethod
    def read_sections(cls, d):
        for name in ("switch", "order"):
            check_type(name, d.get(name), str | None)
        return {"switch": d.get("switch"), "order": d.get("order")}


@dataclass(frozen=True)
class PitfallsResults(Results, command="pitfalls", key="lessons", config_type=PitfallsConfig, row_type=LessonRun):
    """pitfalls' results: a run per lesson and variant, each with its cases."""


# Every kind of document tfgraphs writes, by the command that writes it.
DOCUMENTS = {d.command: d for d in (CompareResults, ExplainResults, SweepResults, Inspection, Unembedding,
                                    ShapesResults, PitfallsResults, Watching)}


# The keys every ok row of a saved compare, explain or sweep document has held since the first schema.
ROW_KEYS = ("build_s", "session_s", "first_run_s", "runs_s", "graph_bytes", "rss_bytes")


def _has_row_keys(row):
    """ValueError naming what an ok row of a saved document lacks of what every one has held."""
    if isinstance(row, dict) and row.get("status", "ok") == "ok":
        missing = [k for k in ROW_KEYS if k not in row]
        if missing:
            raise ValueError(f"row {row.get('name') or row.get('variant')!r} has no {', '.join(missing)}")


def _numbers_a_run_makes(doc):
    """ValueError for a whole number in the document no run makes: past 2**63 in size (floats may be inf or nan:
    an output that differs in shape, or holds NaN, is recorded as such)."""
    pending = [(doc, "")]
    while pending:
        value, place = pending.pop()
        if isinstance(value, dict):
            pending.extend((v, f"{place}.{k}" if place else str(k)) for k, v in value.items())
        elif isinstance(value, list):
            pending.extend((v, f"{place}[{i}]") for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and not abs(value) < 2 ** 63:
            raise ValueError(f"{place} is {str(value)[:40]}..., larger than any figure a run records (2**63 or more)")


def load(doc):
    """The Results or OneRecord a saved document holds; ValueError or KeyError when it holds none."""
    if not isinstance(doc, dict):
        raise ValueError("not a tfgraphs results file")
    _numbers_a_run_makes(doc)
    if doc.get("command") == "unembed" and "tool" not in doc:
        # unembed's first documents held only the keys it was specified with, without the envelope.
        return Unembedding.from_dict(doc)
    if doc.get("tool") != TOOL or "schema" not in doc:
        raise ValueError("not a tfgraphs results file")
    schema = doc["schema"]
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise ValueError(f"schema is {shown(schema)[:40]}, not a whole number")
    if schema > SCHEMA:
        raise ValueError(f"results schema {schema} is newer than this tfgraphs understands ({SCHEMA})")
    if schema < 1:
        raise ValueError(f"schema is {schema}, must be from 1 to {SCHEMA}: no tfgraphs wrote an earlier one")
    doc = upgraded(doc)
    command = doc.get("command", "compare")
    if not isinstance(command, str) or command not in DOCUMENTS:
        raise ValueError(f"unknown command {command!r} in a results file")
    found = DOCUMENTS[command].from_dict(doc)
    if not isinstance(found, Results):
        check_record(found)
    return found
