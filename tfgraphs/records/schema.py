"""The version of the JSON documents tfgraphs writes, its history, and the provenance every document carries."""

from dataclasses import dataclass, field

import tfgraphs
from tfgraphs.machine import now_utc, timing_env

# Schema 1 grew by keys each reader treats as optional, absent in documents written before they were kept
# (read_config and each record's from_dict say what their absence meant). Schema 2 names what --returns chose
# "returns": the seed network's config key "fetches" and its rows' and trials' "fetch" were renamed.
SCHEMA = 2
TOOL = "tfgraphs"


def _from_1(doc):
    """A schema-1 document in schema 2's keys: --returns' choice named "returns" in the seed network's config, rows
    and trials (a user's graph's config keeps "fetches": the nodes it fetched)."""
    def renamed(d, old):
        return {("returns" if k == old else k): v for k, v in d.items()}

    def row(r):
        if not isinstance(r, dict):
            return r
        r = renamed(r, "fetch")
        return {**r, "trials": [row(t) for t in r["trials"]]} if isinstance(r.get("trials"), list) else r
    config = doc.get("config")
    if isinstance(config, dict) and "path" not in config:
        doc = {**doc, "config": renamed(config, "fetches")}
    return {k: [row(r) for r in v] if isinstance(v, list) and k != "config" else v for k, v in doc.items()}


# How a document of each earlier schema becomes one of the next, before any record reads it.
UPGRADES = {1: _from_1}


def upgraded(doc):
    """The saved document in the current schema's keys (a new dict; doc is not changed)."""
    for schema in range(doc["schema"], SCHEMA):
        doc = UPGRADES[schema](doc)
    return doc


def envelope(command):
    """The keys every document starts with."""
    return {"schema": SCHEMA, "tool": TOOL, "command": command}


# Keys that say when and by which tfgraphs a document was made, and under which timing variables (machine.TIMING_ENV).
PROVENANCE = ("tfgraphs_version", "created", "env")


@dataclass(frozen=True, kw_only=True)
class Provenance:
    """The PROVENANCE fields every record of a document has, declared once (keyword-only, so they follow the
    record's own fields)."""

    tfgraphs_version: str | None = tfgraphs.__version__
    created: str | None = field(default_factory=now_utc)
    env: dict | None = field(default_factory=timing_env)


def provenance(record):
    """The record's provenance keys that are known (documents written before they were kept have none)."""
    return {k: getattr(record, k) for k in PROVENANCE if getattr(record, k) is not None}


def provenance_of(doc):
    """The provenance keys of a saved document, None where it has none."""
    return {k: doc.get(k) for k in PROVENANCE}


# What every worker's document holds beside its record's fields: its status, the TensorFlow and devices it ran on,
# and how the runner started it.
WORKER_ENVELOPE = ("status", "error", "tf_version", "tf_build", "devices", "worker_start")


def read_worker(record_type, doc, given=()):
    """A worker's document, read strictly: a key that neither the envelope nor record_type's fields (nor the keys
    the job adds, given) know makes it a failed document naming the key, so a renamed key loses no data unseen.
    Saved files are read leniently, by record_type.from_dict."""
    from dataclasses import fields

    unknown = sorted(set(doc) - set(WORKER_ENVELOPE) - {f.name for f in fields(record_type)} - set(given))
    if not unknown:
        return doc
    return {"status": "failed", "error": f"the worker's document holds {', '.join(map(repr, unknown))}, which "
                                         f"{record_type.__name__} does not know"}
