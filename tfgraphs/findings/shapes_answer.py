"""shapes' answer block: what each new input length cost, which mode paid most, and what fixed blocks bought."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.findings.shapes import costs_by_mode, later_label, split
from tfgraphs.findings.cases import short_s
from tfgraphs.units import fmt_s


def answer(report):
    """At most six lines: the mode that paid most per new length, its traces, and blocked's cost beside it."""
    ok = [r for r in split(report)[0] if r.ok]
    said = _worst(report, ok) + _traces(ok)
    return said[:5] or ["No mode measured a new length against a seen one (--passes 2 or more does)."]


@rests_on("times_s", "khz")
def _worst(report, ok):
    """The mode whose pass 1 paid most over the later passes, and blocked's paired difference beside it."""
    costs = [c for c in costs_by_mode(ok).values() if c.penalty is not None]
    if not costs:
        return []
    paid = [c for c in costs if c.penalized]
    later = later_label(report)
    if not paid:
        return [f"No mode paid measurably for a new length (pass 1 against {later}, paired by length)."]
    worst = max(paid, key=lambda c: c.extra_s)
    said = [f"A new length cost {worst.mode} {fmt_s(worst.extra_s)} a call (pass 1 against {later}, slower on "
            f"{worst.penalty.above} of the {worst.penalty.n} lengths after the first): {worst.ratio:.1f}x."]
    blocked = next((c for c in costs if c.mode == "blocked"), None)
    if blocked is not None and blocked is not worst:
        verdict = "measurably" if blocked.penalized else "nothing measurable"
        said.append(f"Remedy: fixed blocks of {report.config['block']} (blocked) paid {verdict} per new length "
                    f"({'+' if blocked.extra_s >= 0 else '-'}{short_s(abs(blocked.extra_s))}, IQR "
                    f"{short_s(blocked.penalty.spread)}).")
    return said


@rests_on("traces")
def _traces(ok):
    """How many times tf.function traced each mode that traces."""
    traced = [r for r in ok if r.mode.startswith("function") or r.mode == "blocked"]
    if not traced:
        return []
    return ["tf.function traced " + ", ".join(f"{r.mode} {r.traces}x" for r in traced) + "."]
