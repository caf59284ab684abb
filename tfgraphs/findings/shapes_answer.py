"""shapes' answer block: the control, the mode that paid most per new length, and the trace counts."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.shapes_costs import CONTROL, control_verdict, costs_by_mode, later_label, signed, split
from tfgraphs.records.judge import FEWEST, SIGNED_RANK


def answer(report):
    """At most five lines: the control, the mode whose pass 1 paid most, and the trace counts."""
    ok = [r for r in split(report)[0] if r.ok]
    said = _control(report, ok) + _worst(report, ok) + _traces(ok)
    return said[:5] or ["No mode measured a new length against a seen one (--passes 2 or more does)."]


@rests_on("times_s", "khz")
def _control(report, ok):
    """blocked's pass 2 against its pass 3: identical work, so a difference means the run was disturbed."""
    control = control_verdict(report, ok)
    if control is None:
        return []
    if control.differs:
        return [judged(f"Disturbed run: blocked's pass 2 and pass 3, identical fixed-shape work, moved apart "
                       f"({control.brief()}); no new-length cost and no ratio between modes is stated.", control)]
    return [judged(f"Control: blocked (fixed blocks of {report.config['block']}), pass 2 against pass 3: "
                   f"{control.brief()}.", control)]


@rests_on("times_s", "khz")
def _worst(report, ok):
    """The mode whose pass 1 paid most over the later passes, by its judged ratio."""
    costs = [c for c in costs_by_mode(report, ok).values() if c.mode != CONTROL and c.seen is not None]
    control = control_verdict(report, ok)
    if not costs or (control is not None and control.differs):
        return []
    later = later_label(report)
    paid = [c for c in costs if c.penalized]
    if not paid:
        pairs = min(c.penalty.n_a for c in costs)
        short = (f"; {pairs} lengths after the first are too few to find one (the paired test needs "
                 f"{FEWEST[SIGNED_RANK]}): run with --count {FEWEST[SIGNED_RANK] + 1} or more"
                 if pairs < FEWEST[SIGNED_RANK] else "")
        return [f"No mode's pass 1 differed from {later}, paired by length{short}."]
    worst = max(paid, key=lambda c: c.penalty.effect)
    return [judged(f"A new length cost {worst.mode} a median {signed(worst.extra_s)} a call: pass 1 against {later}, "
                   f"paired by length, {worst.penalty.brief()}.", worst.penalty)]


@rests_on("traces")
def _traces(ok):
    """How many times tf.function traced each mode that traces."""
    traced = [r for r in ok if r.mode.startswith("function") or r.mode == "blocked"]
    if not traced:
        return []
    return ["tf.function traced " + ", ".join(f"{r.mode} {r.traces}x" for r in traced) + "."]
