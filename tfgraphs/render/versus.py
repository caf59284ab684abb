"""Render two results side by side: A, B and B/A per row and phase, and what can be judged."""

from tfgraphs.findings.versus import lines, sentences
from tfgraphs.render.page import WIDTH, machine_line, page
from tfgraphs.render.table import Table
from tfgraphs.units import fmt_bytes, sig3

VERDICTS = {"larger": "B larger", "smaller": "B smaller", "same": "no measurable difference",
            None: "one trial: not judged"}


def _value(phase, v):
    return fmt_bytes(v) if phase in ("graph bytes", "peak RSS") else f"{sig3(v * 1e3)} ms"


def render(a, b, names, fmt="simple", width=WIDTH):
    """The comparison of reports a and b (saved as names[0] and names[1]) as text."""
    found = lines(a, b)
    head = "\n".join(f"{tag}: {name}, {r.command} {r.created or '(no date)'}, {machine_line(r)}"
                     for tag, name, r in (("A", names[0], a), ("B", names[1], b)))
    rows = tuple((f["row"], f["phase"], _value(f["phase"], f["a"]), _value(f["phase"], f["b"]),
                  f"{f['ratio']:.2f}x" if f["ratio"] is not None else None, VERDICTS[f["verdict"]]) for f in found)
    table = Table(("row", "phase", "A", "B", "B / A", "judged"), rows, keys=2)
    legend = ("Each value is the row's median over its trials (later median: over every later run). judged = "
              "whether B - A exceeds the spread (max - min) of the trials in A and in B alike.")
    return page(head, [("A against B", table, legend)], "What this comparison shows:", sentences(found), (), fmt,
                width)
