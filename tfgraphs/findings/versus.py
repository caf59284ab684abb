"""Two saved results of one command side by side: per row and phase A, B, B/A, judged against both trial spreads."""

import statistics

from tfgraphs.errors import UsageError
from tfgraphs.records.stats import MIN_FIRST_RUNS, judge, ratio, spread
from tfgraphs.spec.commands import COMMANDS

COMPARABLE = tuple(c.name for c in COMMANDS.values() if c.comparable)
# (label, how to read one trial's value); times in seconds, sizes in bytes.
PHASES = (("build", lambda t: t.build_s), ("session", lambda t: t.session_s), ("init", lambda t: t.init_s),
          ("first run", lambda t: t.first_run_s),
          ("later median", lambda t: statistics.median(t.runs_s) if t.runs_s else None),
          ("graph bytes", lambda t: t.graph_bytes), ("peak RSS", lambda t: t.peak_rss_bytes))


def key(row):
    """What names a row across documents: batch (sweep), variant, preset, and remote or summed (--target, --fetch)."""
    return row.batch, row.variant, row.preset, row.remote, row.fetch or "output"


def label(k):
    batch, variant, preset, remote, fetch = k
    return ((f"batch {batch:,} " if batch is not None else "") + variant
            + (f" [{preset}]" if preset != "default" else "") + (" remote" if remote else "")
            + (" (sum)" if fetch == "sum" else ""))


def pairs(a, b):
    """The ok rows the two reports share, by key; UsageError when they cannot be compared."""
    if a.command != b.command:
        raise UsageError(f"cannot compare results of two commands ({a.command} and {b.command})")
    if a.command not in COMPARABLE:
        raise UsageError(f"report A B compares {', '.join(COMPARABLE)} results, not {a.command}")
    rows_a, rows_b = ({key(r): r for r in rep.rows if r.ok} for rep in (a, b))
    shared = [k for k in rows_a if k in rows_b]
    if not shared:
        raise UsageError("the two results have no variant in common that succeeded in both")
    return [(k, rows_a[k], rows_b[k]) for k in shared]


def lines(a, b):
    """Per shared row and phase measured in both: {row, phase, a, b, ratio, trials, verdict}."""
    out = []
    for k, ra, rb in pairs(a, b):
        for phase, read in PHASES:
            va, vb = read(ra), read(rb)   # a row holds its trials' medians, and every later run pooled
            if va is None or vb is None:
                continue
            ta, tb = ([read(t) for t in r.trials if t.status == "ok"] for r in (ra, rb))
            out.append({"row": label(k), "phase": phase, "a": va, "b": vb, "ratio": ratio(vb, va),
                        "trials": (len(ta), len(tb)), "verdict": _verdict(vb - va, ta, tb)})
    return out


def _verdict(delta, ta, tb):
    """larger, smaller, same (within the spread) or None when either side has fewer than MIN_FIRST_RUNS trials:
    every phase but the later median is one sample per fresh worker, judged as first runs are."""
    if len(ta) < MIN_FIRST_RUNS or len(tb) < MIN_FIRST_RUNS:
        return None
    d = judge(delta, spread(ta), spread(tb))
    return "same" if not d.real else "larger" if d.delta > 0 else "smaller"


def sentences(found):
    """What the comparison can and cannot say."""
    judged = [f for f in found if f["verdict"] is not None]
    if not judged:
        return [f"Each row has fewer than {MIN_FIRST_RUNS} trials in at least one result, so no difference can be "
                f"judged against a spread: run both with --trials {MIN_FIRST_RUNS} or more."]
    said = []
    for word in ("larger", "smaller"):
        moved = [f for f in judged if f["verdict"] == word]
        if moved:
            said.append(f"B is {word} than A beyond both results' trial spreads in: "
                        + "; ".join(f"{f['row']} {f['phase']} ({f['ratio']:.2f}x)" for f in moved) + ".")
    same = len([f for f in judged if f["verdict"] == "same"])
    if same:
        said.append(f"{same} of {len(judged)} judged phases differ by no more than the trial spreads.")
    if len(judged) < len(found):
        said.append(f"{len(found) - len(judged)} phases could not be judged: a row with fewer than {MIN_FIRST_RUNS} "
                    f"trials has too few fresh-worker samples.")
    return said
