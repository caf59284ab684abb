"""What a shapes report tells a reader, declared as data: what a new input length cost each mode, and why; the
headline ones open the page. All are said over one view of the report's rows.

Every comparison asks the judge (tfgraphs.records.judge), length by length (paired). blocked does the same
fixed-shape work in its pass 2 and pass 3, on lengths already seen, so the one against the other is the control: when
it differs, the machine or the order of the calls moved the times, and every time or throughput verdict it guards is
"disturbed run".
"""

from dataclasses import dataclass, replace

from tfgraphs.findings import shapes_said as said
from tfgraphs.findings.evidence import Finding, has, said_by
from tfgraphs.findings.shapes_costs import CONTROL, control_verdict, costs_by_mode, report_cost, split
from tfgraphs.findings.shapes_said import retracing_verdict

# Reached here by the page and the tests.
__all__ = ["DECLARED", "answer", "control_verdict", "report_cost", "retracing_verdict", "sentences", "told"]
SHOWN = 5   # answer lines at most


@dataclass(frozen=True)
class View:
    """The report, its main modes' ok rows and the ok rows run with the switch off."""

    report: object
    ok: tuple
    off: tuple
    whole: object = None

    @classmethod
    def of(cls, report):
        main, off = split(report)
        return cls(report, tuple(r for r in main if r.ok), tuple(r for r in off if r.ok))

    def having(self, names):
        """The view over the rows that hold every field in names."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, report=replace(self.report, rows=kept(self.report.rows)), ok=kept(self.ok),
                       off=kept(self.off), whole=self.whole or self)


def _passes(v):
    """True when some mode saw a length twice (in the whole report): the new-length cost can be measured."""
    w = v.whole or v
    return bool(w.ok) and any(c.seen is not None for c in costs_by_mode(w.report, list(w.ok)).values())


def _worst_judged(v):
    """True when some mode besides the control saw lengths twice and the control did not move."""
    ok, control = list(v.ok), control_verdict(v.report, list(v.ok))
    return (any(c.mode != CONTROL and c.seen is not None for c in costs_by_mode(v.report, ok).values())
            and not (control is not None and control.differs))


def _of(fn, *more):
    """fn over the view's report and ok rows (and the rows run with the switch off)."""
    return lambda v: fn(v.report, list(v.ok), *([list(v.off)] if more else []))


def _remedy(v):
    """blocked's throughput against every other mode's; where the control did not move, function-signature (with
    its trace count) tells the fixed signature's part apart."""
    control = control_verdict(v.report, list(v.ok))
    if control is not None and control.differs:
        return said._remedy(v.report, list(v.ok))
    traced = v.having(("traces",))
    return said._remedy(v.report, list(v.ok)) + said._signature_alone(traced.report, list(traced.ok))


def _every(v):
    return "Every mode" if all(r.ok for r in (v.whole or v).report.rows) else "Every mode that finished"


MEASURED = ("times_s", "khz")
ANSWER = (
    Finding("shapes.control_line", MEASURED, lambda v: control_verdict(v.report, list(v.ok)) is not None,
            _of(said.control_line), True,
            "Control: blocked (fixed blocks of {n}), pass 2 against pass 3: {verdict}. / Disturbed run: blocked's "
            "pass 2 and pass 3, identical fixed-shape work, moved apart ({verdict}); ...",
            "blocked did not run three passes"),
    Finding("shapes.worst", MEASURED, _worst_judged, _of(said.worst), True,
            "A new length cost {mode} a median {time} a call: pass 1 against {passes}, paired by length, {verdict}. "
            "/ No mode's pass 1 differed from {passes}, paired by length.",
            "no mode saw a length twice, or the control moved"),
    Finding("shapes.traces", ("traces",), lambda v: any(r.mode.startswith("function") or r.mode == "blocked"
                                                         for r in v.ok),
            lambda v: said.traces_line(list(v.ok)), True, "tf.function traced {mode} {n}x, ...",
            "no mode that traces ran"),
)
NONE = Finding("shapes.no_pair", (), lambda v: not said_by(ANSWER, v.whole or v),
               lambda v: ["No mode measured a new length against a seen one (--passes 2 or more does)."], True,
               "No mode measured a new length against a seen one (--passes 2 or more does).",
               "any other answer line is said")
# The findings said before they were declared keep the kinds saved documents already hold (module._function).
FINDINGS = (
    Finding("shapes.nothing", (), lambda v: not v.ok,
            lambda v: ["No mode produced a result, so there is nothing to explain."], False,
            "No mode produced a result, so there is nothing to explain.", "some mode produced a result"),
    Finding("shapes._devices", ("device",), lambda v: v.ok, _of(said._devices), False,
            "No GPU was visible and every mode ran on {device}, so cuDNN autotuning does not apply here. / A GPU was "
            "visible ...", "no mode produced a result"),
    Finding("shapes.one_pass", (), lambda v: v.ok and not _passes(v),
            lambda v: ["With one pass no length was seen twice, so the per-new-length cost cannot be measured; run "
                       "with --passes 2 or more."], False,
            "With one pass no length was seen twice, so the per-new-length cost cannot be measured; run with "
            "--passes 2 or more.", "some mode ran two passes or more"),
    Finding("shapes._control", MEASURED, _passes, _of(said._control), False,
            "Control: blocked (blocks of {n}) does the same fixed-shape work in its pass 2 and pass 3, ...: {verdict}. "
            "/ Disturbed run: ... / blocked did not run 3 passes ...", "no mode saw a length twice"),
    Finding("shapes._penalties", MEASURED, _passes, _of(said._penalties), False,
            "Pass 1 against {passes} in {mode}, paired by length: {verdict}; pass 1 the slower on {n} of {n} lengths: "
            "a new length added a median {time} to a {time} call.", "no mode saw a length twice"),
    Finding("shapes._tracing", ("traces",), _passes, _of(said._tracing), False,
            "For {n} distinct lengths, tf.function traced {mode} {n} times, ... / graph built {n} graph(s) ...",
            "no mode saw a length twice, or no trace was counted"),
    Finding("shapes._retracing", ("traces", *MEASURED), _passes, _of(said._retracing), False,
            "function traced {n} times to function-signature's {n}; the cost of a new length ... in function against "
            "function-signature, ...: {verdict}: ...",
            "function paid no new-length cost, or function-signature did not trace once"),
    Finding("shapes._remedy", MEASURED, lambda v: _passes(v) and said.remedy_compared(v.report, list(v.ok)),
            _remedy, False,
            "blocked's throughput (blocks of {n}) on lengths seen for the first time (...): higher than every other "
            "mode / ... (against {mode}: {verdict}; ...). function-signature, which fixes only the input signature "
            "(it traced {n} times), beside blocked, ...: its pass 1 against {passes}, paired by length: {verdict}; "
            "{meaning}.", "blocked or every other mode saw no length twice"),
    Finding("shapes._switch", (*MEASURED, "env"), lambda v: _passes(v) and v.report.switch is not None,
            _of(said._switch, "off"), False,
            "{switch} in {mode}: pass 1 against {passes}, paired by length, with {switch}=1: {verdict}; with "
            "{switch}=0: {verdict}. / ... was not switched off in this run (no --switch-modes).",
            "the run named no switch (oneDNN, cuDNN autotuning)"),
    Finding("shapes._first_call", MEASURED, _passes, _of(said._first_call), False,
            "The very first call in each of the {n} main workers took {time}; against the same worker's median "
            "pass-1 call, paired by worker: {verdict}. ...", "no mode saw a length twice"),
    Finding("shapes.accuracy", ("max_rel_err",), lambda v: _passes(v) and v.ok,
            lambda v: [f"{_every(v)} matched a float64 NumPy reference to "
                       f"{max(r.max_rel_err for r in (*v.ok, *v.off)):.2e} relative error or better."], False,
            "Every mode (that finished) matched a float64 NumPy reference to {error} relative error or better.",
            "no mode saw a length twice"),
)
DECLARED = ANSWER + (NONE,) + FINDINGS


def told(report):
    """(the answer, the findings): every declaration said over one view of the report, split by headline."""
    return answer(report), sentences(report)


def answer(report):
    """At most five lines: the control, the mode whose pass 1 paid most, and the trace counts."""
    return said_by(ANSWER + (NONE,), View.of(report))[:SHOWN]


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    return said_by(FINDINGS, View.of(report))
