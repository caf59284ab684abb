"""Two saved results of one command side by side: per row and phase A, B, B/A, and the judge's verdict on B against A
over the two documents' trials."""

import statistics

from tfgraphs.errors import UsageError
from tfgraphs.findings.evidence import judged
from tfgraphs.records.judge import FEWEST, RANK_SUM, judge
from tfgraphs.records.stats import ratio
# (label, how to read one trial's value); times in seconds, sizes in bytes.
PHASES = (("build", lambda t: t.build_s), ("session", lambda t: t.session_s), ("init", lambda t: t.init_s),
          ("first run", lambda t: t.first_run_s),
          ("later median", lambda t: statistics.median(t.runs_s) if t.runs_s else None),
          ("graph bytes", lambda t: t.graph_bytes), ("peak RSS", lambda t: t.peak_rss_bytes))


def key(row):
    """What names a row across documents: batch (sweep), variant, preset, and remote or summed (--target, --fetch)."""
    return row.batch, row.variant, row.preset, row.remote, row.returns or "output"


def label(k):
    batch, variant, preset, remote, fetch = k
    return ((f"batch {batch:,} " if batch is not None else "") + variant
            + (f" [{preset}]" if preset != "default" else "") + (" remote" if remote else "")
            + (" (sum)" if fetch == "sum" else ""))


def pairs(a, b):
    """The ok rows the two reports share, by key; UsageError when they cannot be compared."""
    if a.command != b.command:
        raise UsageError(f"cannot compare results of two commands ({a.command} and {b.command})")
    rows_a, rows_b = ({key(r): r for r in rep.rows if r.ok} for rep in (a, b))
    shared = [k for k in rows_a if k in rows_b]
    if not shared:
        raise UsageError("the two results have no variant in common that succeeded in both")
    return [(k, rows_a[k], rows_b[k]) for k in shared]


def lines(a, b):
    """Per shared row and phase measured in both: {row, phase, a, b, ratio, trials, verdict}; verdict judges B's
    trials against A's."""
    out = []
    for k, ra, rb in pairs(a, b):
        for phase, read in PHASES:
            va, vb = read(ra), read(rb)   # a row holds its trials' medians, and every later run pooled
            if va is None or vb is None:
                continue
            ta, tb = ([v for v in (read(t) for t in r.trials if t.status == "ok") if v is not None] for r in (ra, rb))
            out.append({"row": label(k), "phase": phase, "a": va, "b": vb, "ratio": ratio(vb, va),
                        "trials": (len(ta), len(tb)), "verdict": _verdict(tb, ta)})
    return out


def _verdict(tb, ta):
    """B's trials against A's: each trial is a fresh worker, and the two documents' workers are independent. A phase
    that may be zero is judged as a shift rather than a ratio."""
    return judge(tb, ta) if all(v > 0 for v in (*ta, *tb)) else judge(tb, ta, scale="shift")


def _listed(found):
    return "; ".join(f"{f['row']} {f['phase']} ({f['verdict'].detail()})" for f in found)


def sentences(found):
    """What the comparison can and cannot say: each verdict with its n and interval."""
    fewest = FEWEST[RANK_SUM]
    said = []
    for word, holds in (("larger", lambda v: v.larger), ("smaller", lambda v: v.smaller)):
        moved = [f for f in found if holds(f["verdict"])]
        if moved:
            said.append(judged(f"B differs from A and is {word} in: {_listed(moved)}.",
                               *(f["verdict"] for f in moved)))
    same = [f for f in found if f["verdict"].same]
    if same:
        said.append(judged(f"No difference beyond {same[0]['verdict'].margin_text()} between A and B in: "
                           f"{_listed(same)}.", *(f["verdict"] for f in same)))
    unknown = [f for f in found if f["verdict"].outcome not in ("differs", "no difference")]
    short = [f for f in unknown if min(f["trials"]) < fewest]
    if short and len(short) == len(found):
        n = sorted({f["trials"] for f in short})
        said.append(judged(f"Cannot tell for any phase: each row has fewer than {fewest} trials in at least one "
                           f"result (n={' or '.join(f'{a} and {b}' for a, b in n)}), and a rank test needs {fewest} a "
                           f"side: run both with --trials {fewest} or more.", *(f["verdict"] for f in short)))
    elif short:
        said.append(judged(f"Cannot tell for {len(short)} phases with fewer than {fewest} trials in A or B (a rank "
                           f"test needs {fewest} a side): {_listed(short)}.", *(f["verdict"] for f in short)))
    rest = [f for f in unknown if f not in short]
    if rest:
        said.append(judged(f"Cannot tell, with enough trials for the test, for: {_listed(rest)}.",
                           *(f["verdict"] for f in rest)))
    return said
