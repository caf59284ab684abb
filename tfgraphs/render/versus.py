"""Render two results side by side: A, B and B/A per row and phase, and the judge's verdict on each."""

from tfgraphs.findings.versus import lines, sentences
from tfgraphs.records.judge import ALPHA, FEWEST, MARGIN, RANK_SUM, ratio_text
from tfgraphs.render.page import WIDTH, Table, machine_line, page
from tfgraphs.units import fmt_bytes, sig3


def _value(phase, v):
    return fmt_bytes(v) if phase in ("graph bytes", "peak RSS") else f"{sig3(v * 1e3)} ms"


def _judged(v):
    """The table's cell: the outcome, then effect, interval, n and p; below the fewest trials, the outcome and n."""
    fewest = FEWEST[v.method]
    if min(v.n_a, v.n_b) < fewest:
        return f"cannot tell: n={v.n_a} and {v.n_b}, needs {fewest} a side"
    return f"{_outcome(v)}: {v.detail()}"


def _outcome(v):
    """The verdict in a few words: 'B larger', 'B smaller', 'no difference beyond 25%', 'cannot tell'."""
    return "B larger" if v.larger else "B smaller" if v.smaller else f"no difference beyond {v.margin_text()}" \
        if v.same else "cannot tell"


def render(a, b, names, fmt="simple", width=WIDTH):
    """The comparison of reports a and b (saved as names[0] and names[1]) as text."""
    found = lines(a, b)
    head = "\n".join(f"{tag}: {name}, {r.command} {r.created or '(no date)'}, {machine_line(r)}"
                     for tag, name, r in (("A", names[0], a), ("B", names[1], b)))
    rows = tuple((f["row"], f["phase"], _value(f["phase"], f["a"]), _value(f["phase"], f["b"]),
                  f"{f['ratio']:.2f}x" if f["ratio"] is not None else None,
                  _judged(f["verdict"])) for f in found)
    table = Table(("row", "phase", "A", "B", "B / A", "judged: B against A, 95% CI, n"), rows, keys=2,
                  wrap=((5, 40),))
    legend = (f"Each value is the row's median over its trials (later median: over every later run). judged = a "
              f"{RANK_SUM} test of B's trials against A's (one value per trial, each a fresh worker): B larger or "
              f"smaller when it rejects at {ALPHA:.0%}, no difference when the {1 - ALPHA:.0%} interval of B/A lies "
              f"within {ratio_text(1 / MARGIN)} to {ratio_text(MARGIN)}, else cannot tell; the test needs "
              f"{FEWEST[RANK_SUM]} trials a side to tell a difference.")
    return page(head, [("A against B", table, legend)], "What this comparison shows:", sentences(found), (), fmt,
                width)
