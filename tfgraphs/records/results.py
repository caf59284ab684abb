"""A whole run's results as one immutable record, and the versioned JSON document it reads from and writes to."""

import platform
from dataclasses import dataclass, field

from tfgraphs.records.inspect import Inspection
from tfgraphs.records.pitfalls import LessonRun
from tfgraphs.records.possible import check_agrees, check_config, check_record
from tfgraphs.records.rows import INT_MEDIANS, MEDIAN_FIELDS, ModeRun, Row
from tfgraphs.records.schema import SCHEMA, TOOL, Provenance, envelope, provenance, provenance_of
from tfgraphs.records.sweep import Extra
from tfgraphs.records.unembed import Unembedding
from tfgraphs.records.watch import Watching


@dataclass(frozen=True)
class Document:
    """How one command's results are saved: the record type it holds, and for Results the key of its rows."""

    command: str
    record: type               # its rows' type, or the one record it saves
    rows: str | None = None    # the key its rows are kept under; None: the document is one record
    extra: type | None = None  # the record its other sections are read into to check their numbers


# Every kind of document tfgraphs writes, by the command that writes it.
DOCUMENTS = {d.command: d for d in (
    Document("compare", Row, "variants"), Document("explain", Row, "runs"), Document("sweep", Row, "rows", Extra),
    Document("inspect", Inspection), Document("unembed", Unembedding), Document("shapes", ModeRun, "modes"),
    Document("pitfalls", LessonRun, "lessons"), Document("watch", Watching),
)}


@dataclass(frozen=True)
class Results(Provenance):
    """A whole run: what command, on what machine, with what config, and its rows."""

    command: str
    config: dict
    rows: tuple
    tf_version: str | None = None
    python: str = platform.python_version()
    machine: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)   # computed sections, e.g. "attribution"
    # When, by which tfgraphs and under which timing variables; None in documents written before they were kept.

    def to_dict(self):
        return {**envelope(self.command), **provenance(self), "tf_version": self.tf_version,
                "python": self.python, "machine": self.machine, "config": self.config,
                DOCUMENTS[self.command].rows: [r.to_dict() for r in self.rows], **self.extra}

    @classmethod
    def from_dict(cls, d):
        command = d.get("command", "compare")
        if command not in DOCUMENTS or DOCUMENTS[command].rows is None:
            raise ValueError(f"unknown command {command!r} in a results file")
        key, row_type = DOCUMENTS[command].rows, DOCUMENTS[command].record
        for name, kind in ((key, list), ("config", dict), ("machine", dict)):
            if name in d and not isinstance(d[name], kind):
                raise ValueError(f"{name} is {str(d[name])[:40]!r}, not {'a list' if kind is list else 'an object'}")
        if row_type is Row:
            for r in d[key]:
                _has_row_keys(r)
        rows = tuple(row_type.from_dict(r) for r in d[key])
        known = {"schema", "tool", "command", "tf_version", "python", "machine", "config", key, *provenance_of(d)}
        extra = {k: v for k, v in d.items() if k not in known}
        _possible(command, d["config"], key, rows, extra)
        return cls(command=command, config=d["config"], rows=rows, tf_version=d.get("tf_version"),
                   python=d.get("python", ""), machine=d.get("machine", {}), extra=extra, **provenance_of(d))


def _possible(command, config, key, rows, extra):
    """ValueError naming the first number of the config, the rows or the other sections no run could have made."""
    check_config(config)
    for i, row in enumerate(rows):
        check_record(row, f"{key}[{i}].")
        if isinstance(row, Row):
            check_agrees(row, f"{key}[{i}]", MEDIAN_FIELDS, INT_MEDIANS)
    if DOCUMENTS[command].extra:
        check_record(DOCUMENTS[command].extra.from_dict(extra))


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
    """The Results, Inspection, Unembedding or Watching a saved document holds; ValueError or KeyError when it holds none."""
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
    document = DOCUMENTS.get(doc.get("command"))
    if document is not None and document.rows is None:
        found = document.record.from_dict(doc)
        check_record(found)
        return found
    return Results.from_dict(doc)
