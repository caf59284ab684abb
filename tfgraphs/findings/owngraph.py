"""What the traces of a user's graph show: the ops its first run spent longest in, from this run's numbers."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.spec.variants import VARIANTS


@rests_on("top_ops")
def slowest_ops(rows):
    """Per traced row of a user's graph: its first run's slowest op, and what the same op took in the second run."""
    said = []
    for r in rows:
        if r.variant in VARIANTS or not r.ok or not r.top_ops:
            continue
        op = max(r.top_ops, key=lambda o: o["first_ms"] or 0.0)
        if op["first_ms"] is None:
            continue
        later = ("it did not run in the second" if op["later_ms"] is None
                 else f"{op['later_ms']:.3g} ms in the second")
        said.append(f"{r.label}: the traced first run spent longest in {op['op']} ({op['type']}), "
                    f"{op['first_ms']:.3g} ms; {later}.")
    return said
