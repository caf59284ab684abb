"""Results as one flat CSV table: a line per variant x trial (x batch); per call (shapes), case (pitfalls), run (watch)."""

import csv
import statistics
from dataclasses import dataclass

from tfgraphs.fileio import write_atomic
from tfgraphs.spec.network import SweepConfig

PHASES = ("build_s", "serialize_s", "session_s", "init_s", "first_run_s")
SIZES = ("graph_bytes", "const_bytes", "nodes", "peak_rss_bytes")
ROW_FIELDS = ("command", "batch", "variant", "preset", "trial", "status", "error", *SIZES, *PHASES,
              "later_min_s", "later_median_s", "later_max_s", "later_n", "max_abs_err")
MODE_FIELDS = ("command", "mode", "switch", "status", "error", "device", "traces", "pass", "length", "seconds")
LESSON_FIELDS = ("command", "lesson", "variant", "status", "error", "case", "step", "seconds", "nodes", "rss_bytes",
                 "bytes", "holds_data", "graph_bytes", "const_bytes")


def _batch(config):
    """The batch every row of a run shares: none for a user's graph (it has no batch), and a sweep's rows each hold
    their own."""
    return None if isinstance(config, SweepConfig) or not hasattr(config, "batch") else config.batch


def _trial_lines(results, row):
    """A line per trial of a Row (one line for a row that never ran)."""
    batch = row.batch if row.batch is not None else _batch(results.config)
    for i, t in enumerate(row.trials or (row,), 1):
        runs = list(t.runs_s)
        yield {"command": results.command, "batch": batch, "variant": row.variant, "preset": row.preset,
               "trial": i if row.trials else None, "status": t.status, "error": t.error,
               **{k: getattr(t, k) for k in (*SIZES, *PHASES)}, "max_abs_err": t.max_abs_err,
               "later_min_s": min(runs, default=None), "later_median_s": statistics.median(runs) if runs else None,
               "later_max_s": max(runs, default=None), "later_n": len(runs)}


def _mode_lines(results, run):
    """A line per call of a shapes mode: its pass, its length and its time."""
    switch = results.switch
    base = {"command": results.command, "mode": run.mode, "switch": run.env.get(switch) if switch else None,
            "status": run.status, "error": run.error, "device": run.device, "traces": run.traces}
    if not run.times_s:
        yield base
    start = results.config.start
    for p, times in enumerate(run.times_s, 1):
        for i, seconds in enumerate(times):
            yield {**base, "pass": p, "length": start + i, "seconds": seconds}


def _lesson_lines(results, run):
    """A line per case of a pitfalls lesson, and per step of a growth case."""
    base = {"command": results.command, "lesson": run.lesson, "variant": run.variant, "status": run.status,
            "error": run.error}
    if not run.cases:
        yield base
    for c in run.cases:
        case = {**base, "case": c.case, "bytes": c.bytes, "holds_data": c.holds_data, "graph_bytes": c.graph_bytes,
                "const_bytes": c.const_bytes}
        if c.step_s:
            for i, (seconds, nodes, rss) in enumerate(zip(c.step_s, c.nodes, c.rss_bytes), 1):
                yield {**case, "step": i, "seconds": seconds, "nodes": nodes, "rss_bytes": rss}
        else:
            yield {**case, "seconds": c.seconds}


RUN_FIELDS = ("command", "file", "line", "kind", "signatures", "run", "seconds")


def _run_lines(results, call):
    """A line per run of a watched call site: its place in the script, and its time."""
    base = {"command": results.command, **{k: call[k] for k in ("file", "line", "kind", "signatures")}}
    for i, seconds in enumerate(call["times_s"], 1):
        yield {**base, "run": i, "seconds": seconds}


@dataclass(frozen=True)
class Lines:
    """A kind of CSV line: what one line stands for, its fields, and the lines of one of a result's rows."""

    each: str          # what a line is, as --help says it: "one flat row per trial"
    fields: tuple
    of_row: object     # of_row(result, row) -> the row's lines, as dicts
    table: str = "rows"   # the attribute of the result whose rows become lines


TRIALS = Lines("trial", ROW_FIELDS, _trial_lines)
CALLS = Lines("call", MODE_FIELDS, _mode_lines)
CASES = Lines("case", LESSON_FIELDS, _lesson_lines)
RUNS = Lines("run", RUN_FIELDS, _run_lines, table="calls")


def lines(results, kind):
    """(field names, dict per line) of the results' flat table, a line of the given kind per row."""
    return kind.fields, [line for r in getattr(results, kind.table) for line in kind.of_row(results, r)]


def write_csv(results, kind, path):
    """Write the results' flat table to path atomically."""
    fields, found = lines(results, kind)

    def write(f):
        out = csv.DictWriter(f, fields, extrasaction="ignore")
        out.writeheader()
        out.writerows(found)
    write_atomic(path, write)
