"""The version of the JSON documents tfgraphs writes, its history, and the provenance every document carries."""

from dataclasses import dataclass, field

import tfgraphs
from tfgraphs.machine import now_utc, timing_env

# Format history:
#   1: compare ("variants") and explain ("runs", "attribution") documents; sweep ("rows", each with its
#      "batch", plus "fit" and "tf_error") added without changing the others;
#      shapes ("modes": one per mode and switch setting, plus "switch") likewise; inspect (the Inspection's fields);
#      pitfalls ("lessons": one per lesson and variant, each with its "cases") likewise;
#      later "tfgraphs_version", "created" (ISO-8601 UTC), "env" (timing variables set) and machine["tf_build"]
#      added, each optional when read; then per row "activation_bytes" (compare, sweep) and "folded" (embedded
#      variants: did the network still run after the first run), per fit "folded" and, in explain,
#      "single_thread" (one single-threaded evaluation of the network), each left out when unset;
#      remote sessions: rows (and their trials) may carry "target", "fetch", "bytes_fed_per_run",
#      "bytes_fetched_per_run", "network_device", "data_device", "traced_between_tasks_bytes", "traced_run_s", and
#      compare/explain configs "target", "baseline", "fetches", "place", "connect_timeout"; absent means in-process;
#      unembed (the Unembedding's fields: "before", "after", "moved", "max_abs_err" first); its first documents held
#      only "command" and those four, without "schema" and "tool", and are read too;
#      watch (the Watching's fields: "calls", "consts", "growth", "feeds", "functions", "findings", "exit_code");
#      then per trial, shapes mode and pitfalls lesson "worker_start" ("forked" or "fresh"), left out when unset.
#      then watch's "left_running" (left out when none) and its "ended" value "killed".
SCHEMA = 1
TOOL = "tfgraphs"


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
