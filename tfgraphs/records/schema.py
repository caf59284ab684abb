"""The JSON documents tfgraphs writes: the schema's version and how an earlier one is upgraded, the envelope and
provenance every document carries, and how a document is read strictly: the type and range each record field
declares, rows that agree with their trials, and a config a run could have had. A document outside them is refused in
one line naming where (variants[0].graph_bytes)."""

import math
from dataclasses import MISSING, dataclass, field, fields, is_dataclass

import tfgraphs
from tfgraphs.machine import now_utc, timing_env
from tfgraphs.records.judge import median_or_none
from tfgraphs.spec.network import BATCH, GRAPHDEF_LIMIT
from tfgraphs.spec.options import FULL_TRIALS, RUNS, SEED, TRIALS

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
    unknown = sorted(set(doc) - set(WORKER_ENVELOPE) - {f.name for f in fields(record_type)} - set(given))
    if not unknown:
        return doc
    return {"status": "failed", "error": f"the worker's document holds {', '.join(map(repr, unknown))}, which "
                                         f"{record_type.__name__} does not know"}


STATUSES = ("ok", "failed")
# What a JSON value may be for each annotation of a record's field; a float field takes an int, a tuple a list.
JSON_TYPES = {str: (str,), int: (int,), float: (int, float), bool: (bool,), tuple: (list, tuple), dict: (dict,)}
JSON_NAMES = {str: "a string", int: "a whole number", float: "a number", bool: "true or false", tuple: "a list",
              dict: "an object"}


def check_type(where, value, kind):
    """Refuse a value that the annotation kind of the field named where does not allow."""
    given = getattr(kind, "__args__", (kind,))
    allowed = [t for t in given if t is not type(None)]
    nullable = len(allowed) < len(given)
    if value is None and nullable:
        return
    types = tuple(j for t in allowed for j in JSON_TYPES.get(t, (t,)))
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in allowed):
        wanted = " or ".join(JSON_NAMES.get(t, t.__name__) for t in allowed) + (" or null" if nullable else "")
        raise ValueError(f"{where} is {shown(value)[:40]}, not {wanted}")


def json_kind(value):
    """What a JSON value is, in a refusal's words: null, a string, a number, true or false, a list, an object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    for kind, name in ((str, "a string"), ((int, float), "a number"), ((list, tuple), "a list"), (dict, "an object")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def check_object(cls, d):
    """ValueError unless d, read as a cls record, is a JSON object."""
    if not isinstance(d, dict):
        article = "an" if cls.__name__[0] in "AEIOU" else "a"
        raise ValueError(f"{article} {cls.__name__} record is {json_kind(d)}, not an object")


def known(cls, d, **tuples):
    """The keys of d that are fields of cls (unknown keys are ignored), with the named ones made tuples by tuples[k];
    ValueError naming the field for a value of the wrong type (a saved document is read through here)."""
    check_object(cls, d)
    kinds = {f.name: f.type for f in fields(cls)}
    out = {k: v for k, v in d.items() if k in kinds}
    lacking = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING and f.name not in d]
    if lacking:
        raise KeyError(f"{cls.__name__}.{lacking[0]}")
    for key, value in out.items():
        check_type(f"{cls.__name__}.{key}", value, kinds[key])
    if out.get("status", "ok") not in STATUSES:
        # A row of another status would be dropped from every table and sentence without a word.
        raise ValueError(f"a row's status {out['status']!r} is not one of {', '.join(STATUSES)}")
    for key, make in tuples.items():
        out[key] = make(out.get(key) or ())
    return out


# No figure a run records reaches 2**63 (int64 holds every count and size): a larger one would overflow the sums
# and medians a page is made of.
LARGEST = 2**63
# The finest duration a clock tfgraphs reads can give (time.perf_counter counts nanoseconds): a positive time below
# it was never measured, and a ratio to it would overflow.
FINEST_S = 1e-9


@dataclass(frozen=True)
class Range:
    """From least to most, finite unless unbounded (an output that differs in shape or holds NaN is saved so)."""

    least: float = 0
    most: float = math.inf
    unbounded: bool = False
    why: str = ""   # written after the bounds: where most comes from
    finest: float = 0   # a positive number below it is refused (FINEST_S for a time)
    nested: bool = False   # a list of lists of numbers (one list per pass)

    def fault(self, number):
        """What is wrong with number, or None."""
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            return "not a number"
        if not math.isfinite(number):
            bounds = self.text()
            return None if self.unbounded else "must be a finite number" + (f", {bounds}" if bounds else "")
        if abs(number) >= LARGEST and not self.unbounded:
            return "larger than any figure a run records (2**63 or more)"
        if 0 < abs(number) < self.finest:
            return f"a time below {self.finest:g} s, finer than the clock that measures it"
        return None if self.least <= number <= self.most else f"must be {self.text()}"

    def text(self):
        """The range in words: '0 or more', 'from 1 to 63', 'at most 255 (a process's exit status)'."""
        # No least: a change, or what is left over a fitted line, which may go either way.
        low = "" if self.least == -math.inf else "0 or more" if self.least == 0 else f"at least {self.least:,}"
        if self.most == math.inf:
            return low + self.why
        return (f"from {self.least:,} to {self.most:,}" if low else f"at most {self.most:,}") + self.why


def ranged(least=0, most=math.inf, *, unbounded=False, why="", finest=0, nested=False, default=None, factory=None,
           keys=None, holds=None):
    """A record field of default (or factory()) whose numbers, in tuples and dicts too, lie in the range; with keys
    ({key: Range}), the field holds dicts (or lists of them) whose numbers under each key lie in that key's range,
    and whose other keys hold names, not numbers (a key checked by a Number or Text must be there, unless its null
    is allowed); with holds (Texts(), ...), what the field holds, checked whole."""
    made = {"default_factory": factory} if factory else {"default": default}
    span = next((s for s in (keys, holds) if s is not None), None) or Range(least, most, unbounded, why, finest,
                                                                            nested)
    return field(**made, metadata={"range": span})


@dataclass(frozen=True)
class Number(Range):
    """One number under a key of a record's objects: null, or the key absent, only where null is allowed."""

    null: bool = False

    def fault(self, value):
        if value is None:
            return None if self.null else "not a number"
        return super().fault(value)

    def held(self, value, place):
        """(where, value, its check) of what the key holds."""
        yield place, value, self


@dataclass(frozen=True)
class Numbers(Number):
    """A list of numbers under a key; unknown: an item may be null (a dimension TensorFlow does not know)."""

    unknown: bool = False

    def fault(self, value):
        return None if value is None and self.null else "not a list"

    def held(self, value, place):
        yield from _items(value, place, self, Number(self.least, self.most, self.unbounded, self.why, self.finest,
                                                     null=self.unknown))


@dataclass(frozen=True)
class Tally(Numbers):
    """An object of names to counts under a key (op types by how many ops each)."""

    def fault(self, value):
        return None if value is None and self.null else "not an object"

    def held(self, value, place):
        if not isinstance(value, dict):
            yield place, value, self
            return
        each = Number(self.least, self.most, self.unbounded, self.why, self.finest)
        for key, item in value.items():
            yield f"{place}.{key}", item, each


@dataclass(frozen=True)
class Text:
    """A name under a key of a record's objects (a file, an op, a dtype): a string, null only where allowed."""

    null: bool = False

    def fault(self, value):
        if isinstance(value, str) or value is None and self.null:
            return None
        return "not a string" + (" or null" if self.null else "")

    def held(self, value, place):
        yield place, value, self


@dataclass(frozen=True)
class Texts(Text):
    """A list of names (a script's arguments, the nodes holding one tensor)."""

    def fault(self, value):
        return None if value is None and self.null else "not a list"

    def held(self, value, place):
        yield from _items(value, place, self, Text())


def _items(value, place, whole, each):
    """(place, value, check) of each item of a list, checked by each; a value that is no list, by whole."""
    if not isinstance(value, (list, tuple)):
        yield place, value, whole
        return
    for i, item in enumerate(value):
        yield f"{place}[{i}]", item, each


# The checks of one key that hold its value whole: a number, a list or object of them, a name or a list of names.
HELD = (Number, Text)


def needed(span):
    """True when an object must hold the key span checks: a Number or Text that allows no null (a plain Range checks
    only the numbers an object holds)."""
    return isinstance(span, HELD) and not span.null


# A time in seconds, as time.perf_counter measures it.
SECONDS = dict(finest=FINEST_S)


# A serialized GraphDef is a protobuf message, which cannot reach 2 GiB.
GRAPH_BYTES = dict(most=GRAPHDEF_LIMIT - 1, why=" (protobuf's 2 GiB limit)")


def check_record(record, where=""):
    """ValueError naming the first number of record, or of the records in its tuples (trials), outside its range."""
    for f in fields(record):
        value, place = getattr(record, f.name), f"{where}{f.name}"
        span = f.metadata.get("range")
        if span is not None:
            check_value(value, place, span)
        elif isinstance(value, tuple) and any(is_dataclass(v) for v in value):
            for i, inner in enumerate(value):
                check_record(inner, f"{place}[{i}].")


def check_value(value, place, span):
    """ValueError naming the first number value holds outside span: a Range, or {key: Range} for the dicts it holds."""
    for at, number, inner in _numbers(value, place, span):
        if isinstance(inner, dict):
            raise ValueError(f"{at} is {shown(number)[:40]}, not an object")
        if inner is None:
            raise ValueError(f"{at} is {shown(number)[:40]}, not a list")
        fault = inner.fault(number)
        if fault:
            raise ValueError(f"{at} is {shown(number)}, {fault}")


def _numbers(value, place, span, depth=0):
    """(where, number, its range) of every number value holds, inside tuples, lists and dicts too; a null field holds
    none, and a dict's keys that span does not name hold none. A field of one Range holds a number, a list of them
    (of lists, when nested) or an object of them, and each item is a number: a null, a list or an object there is
    yielded, to be refused (with no range for an item of a nested field that is no list)."""
    if isinstance(span, (dict, *HELD)) or (value is None and depth == 0):
        yield from _keyed(value, place, span, entry=False)
    elif isinstance(value, (tuple, list)) and (depth == 0 or span.nested and depth == 1):
        for i, inner in enumerate(value):
            yield from _numbers(inner, f"{place}[{i}]", span, depth + 1)
    elif isinstance(value, dict) and depth == 0:
        for key, inner in value.items():
            yield from _numbers(inner, f"{place}.{key}", span, depth + 1)
    else:
        yield place, value, None if span.nested and depth == 1 else span


def _keyed(value, place, span, entry=True):
    """_numbers of a field whose dicts name a check per key: what each key holds, None holding none where a Range
    checks it; an object in a list (an entry) holds every key needed(), a field's own object only when not empty."""
    if isinstance(span, HELD):
        yield from span.held(value, place)
    elif value is None:
        return
    elif isinstance(value, (tuple, list)):
        for i, item in enumerate(value):
            if (item is None or isinstance(item, (tuple, list))) and isinstance(span, dict):
                yield f"{place}[{i}]", item, span   # a list of records holds objects, no null and no list
            else:
                yield from _keyed(item, f"{place}[{i}]", span)
    elif isinstance(value, dict):
        if isinstance(span, dict) and (entry or value):
            lacking = [key for key, inner in span.items() if key not in value and needed(inner)]
            if lacking:
                raise ValueError(f"{place} has no {', '.join(lacking)}")
        for key, item in value.items():
            inner = span.get(key) if isinstance(span, dict) else span
            if inner is not None:
                yield from _keyed(item, f"{place}.{key}", inner)
    else:
        yield place, value, span


def shown(number):
    """number as a message shows it: whole numbers with thousands separators, anything else but a number in JSON's
    words."""
    if isinstance(number, bool):
        return "true" if number else "false"
    if isinstance(number, int):
        return f"{number:,}"
    return repr(number) if isinstance(number, (float, str)) else json_kind(number)


def check_agrees(row, where, medians, int_fields):
    """ValueError when an ok row contradicts its trials, as Row.from_trials makes a row of them: a failed trial,
    a median field that is not the median of the ok trials' values, or later runs that are not theirs pooled."""
    if not row.trials or not row.ok:
        return
    failed = next((i for i, t in enumerate(row.trials) if t.status != "ok"), None)
    if failed is not None:
        raise ValueError(f"{where}.status is 'ok', but its {where}.trials[{failed}] failed")
    for name in medians:
        given, values = getattr(row, name), [getattr(t, name) for t in row.trials]
        if given is None or all(v is None for v in values):
            continue   # documents written before a field was kept leave it out of the row
        median = median_or_none(values)
        median = int(median) if name in int_fields else median
        if not (math.isclose(given, median, rel_tol=1e-9) or math.isnan(given) and math.isnan(median)):
            raise ValueError(f"{where}.{name} is {shown(given)}, but the median of its trials' is {shown(median)}")
    pooled = [s for t in row.trials for s in t.runs_s]
    if pooled and sorted(pooled) != sorted(row.runs_s):
        raise ValueError(f"{where}.runs_s holds {len(row.runs_s)} runs, not the {len(pooled)} of its trials")


# The config numbers a document's text counts or divides by, each bounded by the option that sets it.
CONFIG = {"batch": BATCH, "runs": RUNS, "trials": TRIALS, "full_trials": FULL_TRIALS, "seed": SEED}


def check_config(config):
    """ValueError naming a config number no run could have been given (a batch of 0: every per-example figure
    divides by it)."""
    for name, option in CONFIG.items():
        _check_whole(f"config.{name}", config.get(name), option.check)
    batches = config.get("batches")
    for i, batch in enumerate(batches if isinstance(batches, list) else ()):
        _check_whole(f"config.batches[{i}]", batch, BATCH.check)


def _check_whole(place, value, check):
    """ValueError naming a config value at place that is not a whole number within check's bounds."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{place} is {shown(value)[:40]}, not a whole number")
    fault = Range(check.least, math.inf if check.most is None else check.most).fault(value)
    if fault:
        raise ValueError(f"{place} is {value:,}, {fault}")
