"""The commands whose document is one record, not rows: the OneRecord base (the envelope, the record's own fields,
then what it ran on), and what inspect found in a GraphDef, what unembed did to one, and what watch saw a script do."""

import statistics
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import ClassVar

from tfgraphs.records.judge import judge
from tfgraphs.records.schema import (GRAPH_BYTES, PROVENANCE, Number, Numbers, Provenance, Tally, Text, Texts,
                                     check_object, check_record, envelope, known, provenance, provenance_of, ranged)
from tfgraphs.spec.owngraph import CAUSES, DIAGNOSES


@dataclass(frozen=True, kw_only=True)
class OneRecord(Provenance):
    """One record saved as a whole document; its tuple fields are saved as lists and read back as tuples."""

    command: ClassVar[str]
    # The keys saying what the record ran on, saved after its own fields.
    RAN_ON: ClassVar[tuple] = ("tf_version", "machine")
    tf_version: str | None = None
    machine: dict = field(default_factory=dict)

    def to_dict(self):
        """The saved document."""
        return {**envelope(self.command), **provenance(self), **self.saved()}

    def saved(self):
        """The document's keys after the envelope and provenance: the record's own fields, then RAN_ON."""
        held = asdict(self)
        names = [k for k in held if k not in (*PROVENANCE, *OneRecord.RAN_ON)] + list(self.RAN_ON)
        return {k: list(held[k]) if isinstance(held[k], tuple) else held[k] for k in names}

    @classmethod
    def required(cls):
        """The keys a saved document must hold: the fields without a default."""
        return [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING]

    @classmethod
    def read(cls, d):
        """The record's fields a saved document holds (unknown keys are ignored)."""
        return known(cls, d, **{f.name: tuple for f in fields(cls) if f.type is tuple})

    @classmethod
    def from_dict(cls, d):
        """Rebuild from a saved document (no TensorFlow needed)."""
        missing = [k for k in cls.required() if k not in d]
        if missing:
            raise ValueError(f"not a complete {cls.command} result (no {', '.join(missing)})")
        return cls(**{**cls.read(d), **provenance_of(d)})


# inspect: one GraphDef's sizes and contents, as numbers (nothing was run). What each list's entries hold, key by key.
OP_TYPES = {"op": Text(), "nodes": Number(1), "bytes": Number()}
LARGEST_CONSTS = {"name": Text(), "function": Text(null=True), "dtype": Text(), "shape": Numbers(),
                  "bytes": Number(), "node_bytes": Number(**GRAPH_BYTES), "graph_share": Number(most=1)}
# Identical tensors: two copies or more, each named by its node.
REPEATS = {"bytes": Number(), "copies": Number(2), "nodes": Texts(), "in_functions": Number()}
META_GRAPH = {"of": Number(1), "tags": Texts()}


@dataclass(frozen=True)
class Inspection(OneRecord):
    """The sizes and contents of one GraphDef, as numbers."""

    path: str
    format: str
    file_bytes: int = ranged(default=MISSING)
    graph_bytes: int = ranged(**GRAPH_BYTES, default=MISSING)   # the binary GraphDef's size, under the 2 GiB limit
    nodes: int = ranged(default=MISSING)
    function_nodes: int = ranged(default=MISSING)   # nodes inside the function library
    const_nodes: int = ranged(default=MISSING)
    const_bytes: int = ranged(default=MISSING)      # bytes of all Const tensors once expanded (elements x itemsize)
    const_node_bytes: int = ranged(default=MISSING)   # what those Const nodes take in the serialized graph
    headroom_bytes: int = ranged(default=MISSING)   # bytes the graph could still grow before TensorFlow refuses it
    op_types: tuple = ranged(keys=OP_TYPES, default=MISSING)   # most nodes first
    largest_consts: tuple = ranged(keys=LARGEST_CONSTS, default=MISSING)
    repeats: tuple = ranged(keys=REPEATS, default=())   # identical tensors >= 1 KiB
    elided_consts: int | None = ranged(default=None)   # Const nodes listing fewer values than their shape holds (None:
                                                       # not counted)
    meta_graph: dict | None = ranged(keys=META_GRAPH)   # which meta graph of a SavedModel, and its tags

    command = "inspect"
    # inspect reads the graph without running it: its document names the TensorFlow that parsed it, no machine.
    RAN_ON = ("tf_version",)


# unembed: what moved, what stayed, and the graph before and after, as numbers.
# The keys of `before` and `after` and their ranges: the sizes the rewrite reads, then what a --check run measured
# (None without); either graph was read from, or written as, one GraphDef protobuf, the other numbers are sizes and
# times.
SIDE = {"graph_bytes": Number(**GRAPH_BYTES), "const_bytes": Number(), "largest_const_bytes": Number(),
        **{k: Number(null=True) for k in ("session_s", "load_s", "first_run_s", "peak_rss_bytes")},
        "runs_s": Numbers()}
# A moved Const: its name, its tensor's bytes, dtype and dimensions; a Const left also names the function holding it
# and why it stayed.
MOVED = {"name": Text(), "bytes": Number(), "dtype": Text(), "shape": Numbers()}
LEFT = {**MOVED, "function": Text(), "reason": Text()}


def side(sizes, measured=None):
    """One side of the before/after table from the rewrite's sizes and, with --check, a worker's Measurement."""
    m = measured
    ok = m is not None and m.status == "ok"
    load = None if not ok else m.build_s if m.build_s is not None else m.init_s
    return {"graph_bytes": sizes.get("graph_bytes"), "const_bytes": sizes.get("const_bytes"),
            "largest_const_bytes": sizes.get("largest_const_bytes"),
            "session_s": m.session_s if ok else None, "load_s": load,
            "first_run_s": m.first_run_s if ok else None, "runs_s": list(m.runs_s) if ok else [],
            "peak_rss_bytes": m.peak_rss_bytes if ok else None}


@dataclass(frozen=True)
class Unembedding(OneRecord):
    """One rewrite: the graph before and after, the Consts moved and left, and the check of its outputs."""

    path: str | None            # None in documents that did not record them
    out: str | None
    min_bytes: int | None = ranged(least=1, default=MISSING)   # --min-bytes reads a size of at least 1 byte
    before: dict = ranged(keys=SIDE, factory=dict)
    after: dict = ranged(keys=SIDE, factory=dict)
    moved: tuple = ranged(keys=MOVED, default=())
    left: tuple = ranged(keys=LEFT, default=())
    checked: bool = False
    max_abs_err: float | None = ranged(unbounded=True)   # inf: an output of another shape; NaN: holding NaN
    tolerance: float | None = ranged(unbounded=True)     # of the output whose difference is the largest (scaled by
                                                         # its largest value, which may be inf)
    within: bool | None = None       # every output within its own dtype's tolerance
    unembed_s: float | None = ranged()
    unembed_peak_rss_bytes: int | None = ranged()
    unembed_phases: dict = ranged(factory=dict)   # read_s, rewrite_s, save_s (and assign_s in older runs)
    tf_rss_bytes: int | None = ranged()           # the rewriting worker's RSS once TensorFlow was imported
    errors: tuple = ranged(holds=Texts(), default=())   # ("what: TensorFlow's message", ...) of every worker that failed

    command = "unembed"

    @property
    def moved_bytes(self):
        return sum(m["bytes"] for m in self.moved)

    @property
    def equal(self):
        """True/False whether the outputs matched within tolerance; None when they were not compared."""
        return self.within

    @property
    def ok(self):
        return not self.errors and self.equal is not False

    def saved(self):
        """before, after, moved and max_abs_err, as the --json document was first specified, then the rest."""
        held = super().saved()
        return {**{k: held[k] for k in CORE}, **held}

    @classmethod
    def required(cls):
        """The keys unembed's first documents held: only those are required."""
        return CORE

    @classmethod
    def read(cls, d):
        """The fields a saved document holds; one holding only the keys unembed first wrote leaves the rest unknown."""
        check_object(cls, d)
        given = super().read({"path": None, "out": None, "min_bytes": None, **d})
        if given["path"] is not None and given["min_bytes"] is None:
            raise ValueError("Unembedding.min_bytes is null, not a whole number: a document naming its path names the "
                             "--min-bytes it ran with")
        if bool(given["before"]) != bool(given["after"]):
            empty = "after" if given["before"] else "before"
            raise ValueError(f"{empty} is an empty object, but a rewrite measures both sides")
        # Only a --check run measures the graphs, so measured runs say it ran when the document does not.
        return {"checked": bool(given["after"].get("runs_s")), **given}


# The keys the --json document was first specified with; every other key was added to re-render it.
CORE = ("before", "after", "moved", "max_abs_err")


# watch: a user's script's runs, Consts, growth and feeds, tied to the script's own lines.
# Where in the script: its file, and a line of it (0 where no frame of it made the op: worker.watched.UNKNOWN).
WHERE = {"file": Text(), "line": Number()}
# What each list's entries hold, key by key; each entry is made by the first call, op or feed it counts. A key null
# is allowed for was absent from older documents, or is null when nothing measured it (a call made once has no
# later median).
CALLS = {**WHERE, "kind": Text(), "n": Number(1), "signatures": Number(1), "first_s": Number(),
         "later_median_s": Number(null=True), "feed_bytes_per_call": Number(), "times_s": Numbers(),
         "signature_first_s": Numbers(), "first_run_index": Number(null=True), "sessions": Number(1, null=True),
         "session_first_s": Numbers(null=True), "repeat_median_s": Number(null=True)}
# A Const's NodeDef is read serialized, as one protobuf; its tensor's bytes count every element, even of a splat
# (null, as its shape's dimensions, where TensorFlow does not know them).
CONSTS = {**WHERE, "name": Text(), "bytes": Number(**GRAPH_BYTES), "tensor_bytes": Number(null=True),
          "data_bytes": Number(null=True), "dtype": Text(), "shape": Numbers(null=True, unknown=True),
          "runs_before": Number()}
GROWTH = {**WHERE, "ops": Number(1), "runs": Number(1), "op_types": Tally(1), "causes": Tally(1, null=True),
          "loop": WHERE, "via": WHERE, "after_s": Numbers(null=True), "after_site": WHERE}
FEEDS = {**WHERE, "feed": Text(), "bytes": Number(), "calls": Number(1), "same_calls": Number(), "how": Text(),
         "convert_s": Number(null=True), "converted_from": Text(null=True)}
SESSIONS = {**WHERE, "made": Number(1), "graphs": Number(1), "init_s": Numbers(), "runs": Numbers(),
            "first_s": Numbers(), "repeat_s": Numbers()}
FUNCTIONS = {**WHERE, "name": Text(), "traces": Number()}
LEFT_RUNNING = {"pid": Number(1), "name": Text(null=True)}
EXIT_STATUS = dict(most=255, why=" (a process's exit status)")


@dataclass(frozen=True)
class Watching(OneRecord):
    """One watched script: how it ended, each call site of Session.run, each large Const, the ops made after a
    session's first run, the large arrays fed, and tf.function trace counts (TensorFlow's own)."""

    script: str | None
    argv: tuple = ranged(holds=Texts(), default=())
    tf1: bool = False
    min_bytes: int | None = ranged(least=1)   # --min-bytes reads a size of at least 1 byte
    exit_code: int | None = ranged(**EXIT_STATUS)
    ended: str | None = None               # "exit", "raised", "interrupted" or "killed" (by signal exit_code - 128)
    touched_tensorflow: bool | None = None
    runs: int = ranged(default=0)          # Session.run and callable calls, in the order made
    graph_ops: int | None = ranged()       # ops of every graph seen, whether run or not (None: older documents)
    script_s: float | None = ranged()      # the script's run time, from its start to its end (None: older documents)
    # ({file, line, kind, n, signatures, first_s, later_median_s, feed_bytes_per_call, times_s, signature_first_s,
    #   first_run_index}, ...)
    calls: tuple = ranged(keys=CALLS, default=())
    consts: tuple = ranged(keys=CONSTS, default=())   # ({file, line, name, bytes, tensor_bytes, data_bytes, dtype,
                                                      #   shape, runs_before}, ...)
    growth: tuple = ranged(keys=GROWTH, default=())   # ({file, line, ops, runs, op_types}, ...)
    # ({file, line, feed, bytes, calls, same_calls, how[, converted_from]}, ...)
    feeds: tuple = ranged(keys=FEEDS, default=())
    functions: tuple = ranged(keys=FUNCTIONS, default=())   # ({file, line, name, traces}, ...)
    # ({file, line, made, graphs, init_s, runs, first_s, repeat_s}, ...): sessions by the line that made them (none
    # in older documents)
    sessions: tuple = ranged(keys=SESSIONS, default=())
    findings: tuple = ()   # ({kind, file, line, evidence, remedy, lesson}, ...): diagnoses(), from the fields above
    # ({pid, name}, ...): processes of the script's session still running when its own process ended, which watch
    # ended (left out of the document when none)
    left_running: tuple = ranged(keys=LEFT_RUNNING, default=())
    status: str = "ok"     # "failed": the hooks could not watch (the script still ran as it would)
    error: str | None = None

    command = "watch"

    @property
    def ok(self):
        return self.status == "ok"

    def call_after(self, run_index):
        """The call site whose first run is the first run made at or after run_index, or None."""
        later = [c for c in self.calls if c.get("first_run_index") is not None and c["first_run_index"] >= run_index]
        return min(later, key=lambda c: c["first_run_index"], default=None)

    def saved(self):
        # graph_ops and script_s are None only as read from a document written before they were kept, which lacks
        # them; left_running is kept only when watch ended a process, sessions only when the script made one.
        return {k: v for k, v in super().saved().items()
                if not ((v is None and k in ("graph_ops", "script_s")) or (k in ("left_running", "sessions") and not v))}

    @classmethod
    def read(cls, d):
        given = super().read(d)
        given.pop("findings", None)   # always diagnosed again from what was seen, by this version's rules
        return given

    @classmethod
    def from_dict(cls, d):
        """Rebuild from a saved document or a worker's (read strictly first by schema.read_worker)."""
        found = super().from_dict(d)
        check_record(found)   # the diagnoses compare these numbers, so one no watch writes is refused first
        return replace(found, findings=diagnoses(found))


def diagnoses(w):
    """The named diagnoses of a watched script, each with the measured evidence it rests on, what it cost in this
    run, its remedy and where the course teaches it: the most costly first, those whose cost was not measured last."""
    ranked = sorted(_found(w), key=_rank)
    return tuple({**d, "remedy": _remedy(d), "lesson": DIAGNOSES[d["kind"]].lesson} for d in ranked)


def _rank(d):
    """A diagnosis's place: by its measured cost, most first; one not measured after every one that was (a stable
    sort keeps kind and line order among equals)."""
    cost = d["evidence"].get("cost_s")
    return (cost is None, -(cost or 0.0))


def _remedy(d):
    """The remedy of a diagnosis: for ops a loop made, the one fitting what they were (a Saver, a summary, ...)."""
    causes = d["evidence"].get("causes") or {}
    named = [CAUSES[c].remedy for c in sorted(causes) if c in CAUSES]
    return "; ".join(named) if named else DIAGNOSES[d["kind"]].remedy


def _costed(evidence, cost_s, script_s):
    """evidence with what the diagnosis cost in this run and its share of the script's run time."""
    return {**evidence, "cost_s": cost_s,
            "share": None if cost_s is None or not script_s else cost_s / script_s}


def _found(w):
    """Every diagnosis of w, each with its kind, where in the script, and its evidence."""
    # The remedy moves an array's data out of the graph: it fits a Const whose NodeDef is mostly data, not one whose
    # bytes are its name and attributes (a gradient's scalar, say, or one value broadcast, as tf.zeros stores it).
    found = [_embedded(w, c) for c in w.consts if _mostly_data(c)]
    found += [_repeated(w, f) for f in w.feeds if f["calls"] >= 2 and f["same_calls"] == f["calls"]]
    found += [_growth(w, g) for g in w.growth if g["runs"] >= 2]
    found += [d for d in (_new_signatures(c, w.script_s) for c in w.calls) if d]
    # The hooks count traces, not their time: a retracing's cost is not measured.
    found += [{"kind": "retracing", "file": f["file"], "line": f["line"],
               "evidence": _costed({"name": f["name"], "traces": f["traces"]}, None, w.script_s)}
              for f in w.functions if f["traces"] >= 2]
    found += [_session_per_pass(w, s) for s in w.sessions
              if s["made"] >= 2 and s["graphs"] == 1 and len(s["first_s"]) >= 2 and s["line"]]
    return found


def _mostly_data(const):
    """True when at least half a Const's NodeDef is tensor data (its stored data where the document has it, else
    its tensor's bytes), or its size is unknown."""
    data = const.get("data_bytes", const["tensor_bytes"])
    return data is None or 2 * data >= const["bytes"]


def _embedded(w, const):
    """A Const of at least --min-bytes, with the first call whose first run came after it was made; its cost is
    that first run, beyond the call's later median where it ran again."""
    evidence = {k: const[k] for k in ("name", "bytes", "tensor_bytes", "dtype", "shape")}
    after = w.call_after(const["runs_before"])
    cost = None
    if after is not None:
        evidence["next_call"] = {k: after[k] for k in ("file", "line", "n", "first_s", "later_median_s")}
        cost = max(0.0, after["first_s"] - (after["later_median_s"] or 0.0))
    return {"kind": "embedded-constant", "file": const["file"], "line": const["line"],
            "evidence": _costed(evidence, cost, w.script_s)}


def _repeated(w, feed):
    """An array fed unchanged on every call; its cost is the time handing it to TensorFlow took, as measured (none
    in older documents)."""
    fed = ("feed", "bytes", "calls", "same_calls", "how", "converted_from", "convert_s")
    evidence = {k: feed[k] for k in fed if k in feed}
    cost = None
    if feed.get("convert_s") is not None:
        cost = feed["convert_s"]
    return {"kind": "repeated-feed", "file": feed["file"], "line": feed["line"],
            "evidence": _costed(evidence, cost, w.script_s)}


def _growth(w, g):
    """A loop's line that kept making ops (at its own line or a builder's), with the runs right after them beyond
    their call site's repeats."""
    loop = g.get("loop") or {"file": g["file"], "line": g["line"]}
    evidence = {k: g[k] for k in ("ops", "runs", "op_types")}
    evidence.update(builder={"file": g["file"], "line": g["line"]}, via=list(g.get("via") or ()),
                    causes=dict(g.get("causes") or {}))
    after, site = list(g.get("after_s") or ()), g.get("after_site")
    cost = None
    if after and site:
        call = next((c for c in w.calls if (c["file"], c["line"]) == (site["file"], site["line"])), {})
        typical = call.get("repeat_median_s")
        cost = max(0.0, sum(t - typical for t in after)) if typical is not None else sum(after)
        evidence.update(after_site=site, after_runs=len(after), after_s_total=sum(after), repeat_median_s=typical)
    return {"kind": "graph-growth", "file": loop["file"], "line": loop["line"],
            "evidence": _costed(evidence, cost, w.script_s)}


def _session_per_pass(w, s):
    """A line that made several sessions on one graph: the sessions beyond the first cost their making and their
    first runs beyond the runs that repeated a set of names within one session (the judge compares the two)."""
    firsts, repeats, inits = list(s["first_s"]), list(s["repeat_s"]), list(s["init_s"])
    typical = statistics.median(repeats) if repeats else None
    cost = sum(inits[1:]) + sum(t - (typical or 0.0) for t in firsts[1:])
    evidence = {"made": s["made"], "first_s": firsts, "init_s_total": sum(inits), "repeats": len(repeats),
                "repeat_median_s": typical}
    if repeats and all(t > 0 for t in (*firsts, *repeats)):
        evidence["verdict"] = judge(firsts, repeats).to_dict()
    return {"kind": "session-per-pass", "file": s["file"], "line": s["line"],
            "evidence": _costed(evidence, max(0.0, cost), w.script_s)}


def _new_signatures(call, script_s):
    """A call site that used several fetch/feed sets, where the judge finds the new sets' first calls slower than
    the repeats of sets it had used before, with what they cost beyond a repeat and its share of the script's time."""
    firsts = list(call.get("signature_first_s") or ())
    repeats = list(call.get("times_s") or ())
    for t in firsts:
        if t in repeats:
            repeats.remove(t)
    if call["signatures"] < 2 or not repeats or not all(t > 0 for t in (*firsts, *repeats)):
        return None
    verdict = judge(firsts[1:], repeats)
    if not verdict.larger:
        return None
    typical = statistics.median(repeats)
    cost = sum(t - typical for t in firsts[1:])
    return {"kind": "new-signature", "file": call["file"], "line": call["line"],
            "evidence": {"signatures": call["signatures"], "new_first_s": firsts[1:], "repeats": len(repeats),
                         "repeat_median_s": typical, "verdict": verdict.to_dict(), "cost_s": cost,
                         "share": None if not script_s else cost / script_s}}
