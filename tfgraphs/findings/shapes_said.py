"""The sentences of shapes' findings and answer lines: what a new input length cost each mode, and why, each
comparison asked of the judge length by length (paired)."""

from tfgraphs.findings.cases import short_s
from tfgraphs.findings.evidence import judged
from tfgraphs.findings.shapes_costs import (CONTROL, CONTROL_PASSES, control_verdict, costs_by_mode, judge, later_label,
                                            report_cost, short_device, signed, timed)
from tfgraphs.records.judge import DISTURBED, FEWEST, SIGNED_RANK
from tfgraphs.spec.shapes import AUTOTUNE, SWITCH_NAMES
from tfgraphs.units import fmt_s, join


# Modes run in workers of their own: a comparison between modes pairs lengths across two workers, one a mode.
ACROSS = "paired by length across the two modes' workers (one a mode: a worker's own speed is not separated)"
ON_OFF = "paired by length across the two workers (one each: a worker's own speed is not separated)"


def _devices(report, ok):
    if not ok:
        return []
    devices = sorted({short_device(r.device) or "?" for r in ok})
    where = f"every mode ran on {devices[0]}" if len(devices) == 1 else f"the modes ran on {join(devices)}"
    if report.switch == AUTOTUNE:
        return [f"A GPU was visible and {where}; cuDNN autotuning is likely to apply to the convolutions placed on "
                f"it (not measured on a GPU by this tool)."]
    return [f"No GPU was visible and {where}, so cuDNN autotuning does not apply here."]


def _control(report, ok):
    """The control's own verdict: it decides whether any other time or throughput verdict is said."""
    control = control_verdict(report, ok)
    if not any(c.seen is not None for c in costs_by_mode(report, ok).values()):
        return []
    if control is None:
        return [f"blocked did not run {CONTROL_PASSES[1] + 1} passes (--passes {CONTROL_PASSES[1] + 1}), so no "
                f"control checked that the passes met the same machine: the verdicts below are not guarded against "
                f"a change of load."]
    work = (f"blocked (blocks of {report.config.block}) does the same fixed-shape work in its pass 2 and pass 3, "
            f"on lengths it has already seen, so they must not differ")
    if control.differs:
        faster = control.n_a - control.above
        return [judged(f"Disturbed run: {work}, yet pass 2 against pass 3, paired by length, "
                       f"{control.says()}, pass 2 the {'faster' if control.smaller else 'slower'} on "
                       f"{faster if control.smaller else control.above} of {control.n_a} lengths. The machine's load "
                       f"or the order of the calls moved the times, so this run states no new-length cost and no "
                       f"ratio between modes; run it again on a quieter machine.", control)]
    return [judged(f"Control: {work}; pass 2 against pass 3, paired by length: {control.says()}.", control)]


def _penalties(report, ok):
    costs, later, said = costs_by_mode(report, ok), later_label(report), []
    judged_costs = [c for c in costs.values() if c.mode != CONTROL and c.seen is not None]
    disturbed = [c for c in judged_costs if c.penalty.outcome == DISTURBED]
    if disturbed:
        verdict = disturbed[0].penalty
        said.append(judged(f"Pass 1 against {later} in {join([c.mode for c in disturbed])}: "
                           f"{verdict.says()}.", verdict))
    for c in sorted((c for c in judged_costs if c not in disturbed), key=lambda c: -c.penalty.effect):
        v = c.penalty
        text = f"Pass 1 against {later} in {c.mode}, paired by length: {v.says()}"
        if v.larger:
            text += (f"; pass 1 the slower on {v.above} of {v.n_a} lengths: a new length added a median "
                     f"{signed(c.extra_s)} to a {short_s(c.seen_s)} call")
        elif v.smaller:
            text += f"; pass 1 the faster on {v.n_a - v.above} of {v.n_a} lengths"
        said.append(judged(text + ".", v))
    return said


def _tracing(report, ok):
    n, said = report.config.count, []
    traced = [r for r in ok if r.traces is not None and r.mode != "graph"]
    if traced:
        parts = [f"{r.mode} {r.traces} time{'s' if r.traces != 1 else ''}" for r in traced]
        said.append(f"For {n} distinct lengths, tf.function traced " + join(parts) + ".")
    graph = next((r for r in ok if r.mode == "graph" and r.traces is not None), None)
    if graph is not None and graph.traces == 1:
        said.append(f"graph built {graph.traces} graph with a [None, None, {report.config.channels}] placeholder "
                    f"and ran all {n} lengths in it.")
    elif graph is not None:
        said.append(f"graph built {graph.traces} graphs for {n} distinct lengths.")
    return said


def _retracing(report, ok):
    """How much of function's new-length cost retracing explains, when function-signature traced just once."""
    costs = costs_by_mode(report, ok)
    f, s = costs.get("function"), costs.get("function-signature")
    traces = {r.mode: r.traces for r in ok}
    once, many = traces.get("function-signature"), traces.get("function")
    # The two differ by retracing alone only if function-signature traced once and function more than that.
    if not (f and s and f.penalized and once == 1 and many is not None and many > once):
        return []
    retrace = retracing_verdict(f, s)
    head = (f"function traced {many} times to function-signature's {once}; the cost of a new length (pass 1 minus "
            f"{later_label(report)}, length by length) in function against function-signature, {ACROSS}: "
            f"{retrace.says(signed)}")
    if retrace.larger:
        return [judged(f"{head}: that much of function's new-length cost is absent where the signature is fixed, and "
                       f"the trace counts say function retraced.", retrace)]
    return [judged(f"{head}: this run does not show function's new-length cost to be retracing.", retrace)]


def retracing_verdict(f, s):
    """function's new-length costs against function-signature's, length by length: each a difference within one
    worker, so the two workers' own speeds cancel; guarded by the control like every time."""
    return judge(f.differences, s.differences, paired=True, scale="shift", control=f.control)


def _against_every(mine, theirs, control, what):
    """mine's throughput against each other mode's, paired by length: one clause and the verdicts.

    A "higher" is said only when every one of those verdicts is larger.
    """
    verdicts = {m: judge(mine, t, paired=True, control=control) for m, t in theirs.items()}
    each = "; ".join(f"against {m}: {v.says()}" for m, v in verdicts.items())
    higher = [m for m, v in verdicts.items() if v.larger]
    lower = [m for m, v in verdicts.items() if v.smaller]
    rest = [m for m in verdicts if m not in higher and m not in lower]
    if len(higher) == len(verdicts):
        sum_up = "higher than every other mode"
    elif len(rest) == len(verdicts):
        sum_up = "not shown to differ from any other mode"
    else:
        parts = ([f"higher than {join(higher)}"] if higher else []) + ([f"lower than {join(lower)}"] if lower else [])
        parts += [f"not shown to differ from {join(rest)}"] if rest else []
        sum_up = ", ".join(parts) + ", so not higher than every other mode"
    return f"{what}: {sum_up} ({each})", tuple(verdicts.values())


def remedy_compared(report, ok):
    """True when blocked and some other mode saw lengths twice, so blocked's throughput is set against theirs."""
    costs = costs_by_mode(report, ok)
    b = costs.get(CONTROL)
    return b is not None and b.seen is not None and any(c.mode != CONTROL and c.seen is not None
                                                       for c in costs.values())


def _remedy(report, ok):
    costs, later = costs_by_mode(report, ok), later_label(report)
    b = costs.get(CONTROL)
    others = {c.mode: c for c in costs.values() if c.mode != CONTROL and c.seen is not None}
    control = control_verdict(report, ok)
    head = f"blocked's throughput (blocks of {report.config.block})"
    if control is not None and control.differs:
        # Two numbers from a moving machine make no ratio: the control's own numbers are all that is printed.
        moved = [judge(mine, c_khz, paired=True, control=control) for c in others.values()
                 for mine, c_khz in ((b.new_khz, c.new_khz), (b.seen_khz, c.seen_khz))]
        return [judged(f"{head} against every other mode: {moved[0].says()}.", *moved)]
    said = []
    for what, mine, theirs in (
            (f"{head} on lengths seen for the first time (pass 1 against pass 1, {ACROSS})", b.new_khz,
             {m: c.new_khz for m, c in others.items()}),
            (f"{head} on lengths already seen ({later} against {later}, {ACROSS})", b.seen_khz,
             {m: c.seen_khz for m, c in others.items()})):
        text, verdicts = _against_every(mine, theirs, control, what)
        said.append(judged(text + ".", *verdicts))
    return said


def _signature_alone(report, ok):
    """blocked fixes both the input signature and the block's shape; function-signature fixes the signature alone,
    so the two effects are told apart by it, with its trace count."""
    sig = costs_by_mode(report, ok).get("function-signature")
    traced = {r.mode: r.traces for r in ok}.get("function-signature")
    if sig is None or sig.seen is None or traced is None:
        return []
    v = sig.penalty
    f = costs_by_mode(report, ok).get("function")
    direct = retracing_verdict(f, sig) if f is not None and f.seen is not None else None
    # "Removed" needs function's cost shown larger than function-signature's, not only the latter within a margin.
    meaning = ("the fixed signature alone did not remove the cost of new lengths" if v.larger else
               "the fixed signature alone removed what function paid per new length (function's cost against "
               f"function-signature's: {direct.brief(signed)})" if direct is not None and direct.larger else
               "this run does not tell what the fixed signature alone did")
    return [judged(f"function-signature, which fixes only the input signature (it traced {traced} "
                   f"time{'s' if traced != 1 else ''}), beside blocked, which also fixes the block's shape: its pass 1 "
                   f"against {later_label(report)}, paired by length: {v.says()}; {meaning}.", v)]


def _switch(report, ok, off):
    switch = report.switch
    if switch is None:
        return []
    name = SWITCH_NAMES[switch]
    if not report.config.switch_modes:
        return [f"{name} was not switched off in this run (no --switch-modes)."]
    later, said, control = later_label(report), [], control_verdict(report, ok)
    untested = " (this GPU path is untested)" if switch == AUTOTUNE else ""
    for r_off in off:
        r_on = next((r for r in ok if r.mode == r_off.mode), None)
        if r_on is None or not (timed(r_on) and timed(r_off)):
            continue
        on, of = (report_cost(report, r, control) for r in (r_on, r_off))
        if on.seen is None:
            continue
        mode = r_on.mode
        if control is not None and control.differs:
            # One sentence for the lot: each verdict would print the same control numbers and no ratio.
            moved = on.penalty
            said.append(judged(f"{name} in {mode}{untested}, on against off: no time or throughput is compared, "
                               f"{moved.says()}.", moved))
            continue
        said.append(judged(f"{name} in {mode}{untested}: pass 1 against {later}, paired by length, with "
                           f"{switch}=1: {on.penalty.says()}; with {switch}=0: {of.penalty.says()}.",
                           on.penalty, of.penalty))
        added = judge(on.differences, of.differences, paired=True, scale="shift", control=control)
        said.append(judged(f"The time a new length added to a call in {mode} with {name} on against off, "
                           f"{ON_OFF}: {added.says(signed)}" +
                           (f": {name} accounts for part of each new length's cost in {mode}." if added.larger
                            else "."), added))
        first = judge(on.new_khz, of.new_khz, paired=True, control=control)
        again = judge(on.seen_khz, of.seen_khz, paired=True, control=control)
        said.append(judged(f"{mode}'s throughput with {name} on against off, {ON_OFF}: on lengths seen for "
                           f"the first time (pass 1 against pass 1) {first.says()}; on lengths already seen "
                           f"({later} against {later}) {again.says()}.", first, again))
    return said


def _first_call(report, ok):
    """The very first call of each worker against that worker's median pass-1 call: pairs, one per worker; what the
    first call traced (TensorFlow's own count after it) says whether the difference is start-up alone."""
    costs = costs_by_mode(report, ok)
    if not costs:
        return []
    v = judge([c.first_s for c in costs.values()], [c.new_s for c in costs.values()], paired=True)
    low, high = min(c.first_s for c in costs.values()), max(c.first_s for c in costs.values())
    took = fmt_s(high) if fmt_s(low) == fmt_s(high) else f"{fmt_s(low)} to {fmt_s(high)}"
    each = "the worker" if len(costs) == 1 else f"each of the {len(costs)} main workers"
    return [judged(f"The very first call in {each} took {took}; against the same worker's median pass-1 call, paired "
                   f"by worker: {v.says()}. " + _first_traced([r for r in ok if r.mode in costs], report)
                   + "The first length is left out of the per-length statistics.", v)]


def _first_traced(rows, report):
    """What each worker's first call traced, by TensorFlow's count after it, and what that makes its difference."""
    counted = [r for r in rows if r.first_call_traces is not None and r.traces is not None]
    if not counted:
        return "What that first call traced was not recorded, so start-up is not told apart from tracing. "
    n, uncounted = report.config.count, [r.mode for r in rows if r not in counted]
    each = join([f"{r.mode} {r.first_call_traces} (of {r.traces} for {n} lengths)" for r in counted]
                + ([f"no count in {join(uncounted)}"] if uncounted else []))
    every = [r.mode for r in counted if r.first_call_traces >= 1 and r.traces >= n]
    once = [r.mode for r in counted if r.first_call_traces >= 1 and r.traces < n]
    said = f"That first call traced or built a graph, by the count right after it: {each}. "
    if every:
        said += (f"{join(every)} traced every new length, so its pass-1 calls traced too and its difference is not "
                 f"tracing. ")
    if once:
        said += f"In {join(once)} the first call's trace is among its difference: start-up and tracing together. "
    return said


def control_line(report, ok):
    """blocked's pass 2 against its pass 3: identical work, so a difference means the run was disturbed."""
    control = control_verdict(report, ok)
    if control is None:
        return []
    if control.differs:
        return [judged(f"Disturbed run: blocked's pass 2 and pass 3, identical fixed-shape work, moved apart "
                       f"({control.brief()}); no new-length cost and no ratio between modes is stated.", control)]
    return [judged(f"Control: blocked (fixed blocks of {report.config.block}), pass 2 against pass 3: "
                   f"{control.brief()}.", control)]


def worst(report, ok):
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


def traces_line(ok):
    """How many times tf.function traced each mode that traces."""
    traced = [r for r in ok if r.mode.startswith("function") or r.mode == "blocked"]
    if not traced:
        return []
    return ["tf.function traced " + ", ".join(f"{r.mode} {r.traces}x" for r in traced) + "."]
