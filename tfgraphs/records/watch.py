"""What `tfgraphs watch` saw a user's script do, tied to the script's own lines: its runs, Consts, growth and feeds."""

import statistics
from dataclasses import dataclass, replace

from tfgraphs.records.document import OneRecord
from tfgraphs.records.judge import judge
from tfgraphs.records.possible import GRAPH_BYTES, Range, check_record, ranged
from tfgraphs.spec.watch import KINDS

# A line of the script: 0 where no frame of it made the op (worker.watchframes.UNKNOWN).
LINE = Range()
# What each list's entries hold, key by key; each entry is made by the first call, op or feed it counts.
CALLS = {"line": LINE, "n": Range(1), "signatures": Range(1), "first_s": Range(), "later_median_s": Range(),
         "feed_bytes_per_call": Range(), "times_s": Range(), "signature_first_s": Range(), "first_run_index": Range()}
# A Const's NodeDef is read serialized, as one protobuf; its tensor's bytes count every element, even of a splat.
CONSTS = {"line": LINE, "bytes": Range(**GRAPH_BYTES), "tensor_bytes": Range(), "shape": Range(),
          "runs_before": Range()}
GROWTH = {"line": LINE, "ops": Range(1), "runs": Range(1), "op_types": Range(1)}
FEEDS = {"line": LINE, "bytes": Range(), "calls": Range(1), "same_calls": Range()}
FUNCTIONS = {"line": LINE, "traces": Range()}
EXIT_STATUS = dict(most=255, why=" (a process's exit status)")


@dataclass(frozen=True)
class Watching(OneRecord):
    """One watched script: how it ended, each call site of Session.run, each large Const, the ops made after a
    session's first run, the large arrays fed, and tf.function trace counts (TensorFlow's own)."""

    script: str | None
    argv: tuple = ()
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
    consts: tuple = ranged(keys=CONSTS, default=())   # ({file, line, name, bytes, tensor_bytes, dtype, shape,
                                                      #   runs_before}, ...)
    growth: tuple = ranged(keys=GROWTH, default=())   # ({file, line, ops, runs, op_types}, ...)
    # ({file, line, feed, bytes, calls, same_calls, how[, converted_from]}, ...)
    feeds: tuple = ranged(keys=FEEDS, default=())
    functions: tuple = ranged(keys=FUNCTIONS, default=())   # ({file, line, name, traces}, ...)
    findings: tuple = ()   # ({kind, file, line, evidence, remedy, lesson}, ...): diagnoses(), from the fields above
    # ({pid, name}, ...): processes of the script's session still running when its own process ended, which watch
    # ended (left out of the document when none)
    left_running: tuple = ranged(keys={"pid": Range(1)}, default=())
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
        # them; left_running is kept only when watch ended a process.
        return {k: v for k, v in super().saved().items()
                if not ((v is None and k in ("graph_ops", "script_s")) or (k == "left_running" and not v))}

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
    """The named diagnoses of a watched script, each with the measured evidence it rests on, its remedy and where
    the course teaches it, most costly first."""
    return tuple({**d, "remedy": KINDS[d["kind"]].remedy, "lesson": KINDS[d["kind"]].lesson} for d in _found(w))


def _found(w):
    # The remedy moves an array's data out of the graph: it fits a Const whose NodeDef is mostly data, not one whose
    # bytes are its name and attributes (a gradient's scalar, say).
    found = [_embedded(w, c) for c in w.consts if c["tensor_bytes"] is None or 2 * c["tensor_bytes"] >= c["bytes"]]
    fed = ("feed", "bytes", "calls", "same_calls", "how", "converted_from")
    found += [{"kind": "repeated-feed", "file": f["file"], "line": f["line"],
               "evidence": {k: f[k] for k in fed if k in f}}
              for f in w.feeds if f["calls"] >= 2 and f["same_calls"] == f["calls"]]
    found += [{"kind": "graph-growth", "file": g["file"], "line": g["line"],
               "evidence": {k: g[k] for k in ("ops", "runs", "op_types")}} for g in w.growth if g["runs"] >= 2]
    found += [d for d in (_new_signatures(c, w.script_s) for c in w.calls) if d]
    found += [{"kind": "retracing", "file": f["file"], "line": f["line"],
               "evidence": {"name": f["name"], "traces": f["traces"]}} for f in w.functions if f["traces"] >= 2]
    return found


def _embedded(w, const):
    """A Const of at least --min-bytes, with the first call whose first run came after it was made."""
    evidence = {k: const[k] for k in ("name", "bytes", "tensor_bytes", "dtype", "shape")}
    after = w.call_after(const["runs_before"])
    if after is not None:
        evidence["next_call"] = {k: after[k] for k in ("file", "line", "n", "first_s", "later_median_s")}
    return {"kind": "embedded-constant", "file": const["file"], "line": const["line"], "evidence": evidence}


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
