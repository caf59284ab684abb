"""A whole run's results as one immutable record per command (its Config, its rows, its other sections), and the
versioned JSON document each reads from and writes to."""

import platform
from dataclasses import dataclass, field, fields
from typing import ClassVar

from tfgraphs.records.explain import ExplainedGraph
from tfgraphs.records.one_record import Inspection, Unembedding, Watching
from tfgraphs.records.rows import INT_MEDIANS, MEDIAN_FIELDS, LessonRun, ModeRun, Row
from tfgraphs.records.schema import (SCHEMA, TOOL, Provenance, check_agrees, check_config, check_record, check_type,
                                     envelope, provenance, provenance_of, upgraded)
from tfgraphs.records.sweep import Extra
from tfgraphs.spec.pitfalls import Config as PitfallsConfig
from tfgraphs.spec.network import Config as SeedConfig
from tfgraphs.spec.network import ExplainConfig, SweepConfig
from tfgraphs.spec.shapes import Config as ShapesConfig


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
    for name, value in held.items():
        check_type(f"config.{name}", value, kinds[name])
    # Before --trials a run had one trial; before --full-trials every trial measured every phase.
    if "trials" in names:
        held.setdefault("trials", 1)
    if "full_trials" in names:
        held.setdefault("full_trials", held["trials"])
    lacking = sorted(names - set(held) - set(LATER_KEYS) - set(UNSAVED.get(config_type, ())))
    if lacking:
        raise KeyError(lacking[0])
    return config_type(**held)


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
                raise ValueError(f"{name} is {str(d[name])[:40]!r}, not {'a list' if kind is list else 'an object'}")
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
    pending = [doc]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif isinstance(value, int) and not isinstance(value, bool) and not abs(value) < 2 ** 63:
            raise ValueError(f"it holds the number {str(value)[:40]}..., which no run makes")


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
        raise ValueError(f"schema is {str(schema)[:40]!r}, not a whole number")
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
