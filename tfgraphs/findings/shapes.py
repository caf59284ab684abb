"""shapes' findings: what a new input length cost each mode, and why, each finding a named function said over one
view of the results' rows; the headline ones open the page.

Every comparison asks the judge (tfgraphs.records.judge), length by length (paired). blocked does the same
fixed-shape work in its pass 2 and pass 3, on lengths already seen, so the one against the other is the control: when
it differs, the machine or the order of the calls moved the times, and every time or throughput verdict it guards is
"disturbed run".
"""

import statistics
from dataclasses import dataclass, replace

from tfgraphs.findings.cases import short_s
from tfgraphs.findings.evidence import FINDINGS, answer_then_findings, finding, has, judged, sentences_of
from tfgraphs.records.judge import CANNOT_TELL, DISTURBED, RANK_SUM, fewest, fewest_a_side
from tfgraphs.records.shapes import (CONTROL, CONTROL_PASSES, across, control_verdict, costs_by_mode, extra,
                                     first_workers, judge, new_khz, run_cost, seen_khz, split, timed, workers_of)
from tfgraphs.spec.shapes import AUTOTUNE, SWITCH_NAMES
from tfgraphs.units import fmt_s, join

SHOWN = 5   # answer lines at most
MEASURED = ("times_s", "khz")

def short_device(name):
    """"/job:localhost/replica:0/task:0/device:CPU:0" -> "CPU:0"."""
    return None if not name else name.rsplit("device:", 1)[-1]


def signed(seconds):
    """A duration with its sign: "+1.2 ms", "-400 us"."""
    return ("-" if seconds < 0 else "+") + short_s(abs(seconds))


def later_label(results):
    """What the passes after the first are called in tables and sentences."""
    return "pass 2" if results.config.passes == 2 else "later passes"


# Modes run in workers of their own: a comparison between modes, or between the switch on and off, sets one worker's
# median against another's, so a worker's own speed is one sample and the judge needs several workers a side.
ACROSS = "one median a worker, each mode's workers against the other's"
ON_OFF = "one median a worker, the workers with it on against those with it off"


def more_workers(*verdicts):
    """'; run with --trials 4 or more to tell' where a comparison across workers had too few a side to tell at its
    level (5 in a family of two)."""
    short = [v for v in verdicts if v.method == RANK_SUM and v.need]
    return f"; run with --trials {fewest_a_side(short)} or more to tell" if short else ""


@dataclass(frozen=True)
class View:
    """The results, the first ok worker of each main mode and of each mode run with the switch off."""

    results: object
    ok: tuple
    off: tuple
    whole: object = None

    @classmethod
    def of(cls, results):
        main, off = split(results)
        return cls(results, first_workers(main), first_workers(off))

    def with_evidence(self, names):
        """The view over the rows that hold every field in names."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, results=replace(self.results, rows=kept(self.results.rows)), ok=kept(self.ok),
                       off=kept(self.off), whole=self.whole or self)


def _passes(view):
    """True when some mode saw a length twice (in the whole results): the new-length cost can be measured."""
    whole = view.whole or view
    return bool(whole.ok) and any(c.seen is not None for c in costs_by_mode(whole.results, list(whole.ok)).values())


def retracing_verdict(results, control):
    """function's new-length cost against function-signature's, one median a worker: each a difference within one
    worker, set against the other mode's workers; guarded like every comparison across workers."""
    return across(results, workers_of(results, "function"), workers_of(results, "function-signature"), extra,
                  control, scale="shift")


def _against_every(verdicts, what):
    """blocked's throughput against each other mode's ({mode: verdict}): one clause and the verdicts.

    A "higher" is said only when every one of those verdicts is larger.
    """
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
    return f"{what}: {sum_up} ({each}){more_workers(*verdicts.values())}", tuple(verdicts.values())


def remedy_compared(results, ok):
    """True when blocked and some other mode saw lengths twice, so blocked's throughput is set against theirs."""
    costs = costs_by_mode(results, ok)
    b = costs.get(CONTROL)
    return b is not None and b.seen is not None and any(c.mode != CONTROL and c.seen is not None
                                                       for c in costs.values())


def _signature_alone(results, ok):
    """blocked fixes both the input signature and the block's shape; function-signature fixes the signature alone,
    so the two effects are told apart by it, with its trace count."""
    sig = costs_by_mode(results, ok).get("function-signature")
    traced = {r.mode: r.traces for r in ok}.get("function-signature")
    if sig is None or sig.seen is None or traced is None:
        return []
    v = sig.penalty
    f = costs_by_mode(results, ok).get("function")
    direct = retracing_verdict(results, sig.control) if f is not None and f.seen is not None else None
    # "Removed" needs function's cost shown larger than function-signature's, not only the latter within a margin.
    meaning = ("the fixed signature alone did not remove the cost of new lengths" if v.larger else
               "the fixed signature alone removed what function paid per new length (function's cost against "
               f"function-signature's: {direct.brief(signed)})" if direct is not None and direct.larger else
               "this run does not tell what the fixed signature alone did")
    return [judged(f"function-signature, which fixes only the input signature (it traced {traced} "
                   f"time{'s' if traced != 1 else ''}), beside blocked, which also fixes the block's shape: its pass 1 "
                   f"against {later_label(results)}, paired by length: {v.says()}; {meaning}.", v)]


def _first_traced(rows, results):
    """What each worker's first call traced, by TensorFlow's count after it, and what that makes its difference."""
    counted = [r for r in rows if r.first_call_traces is not None and r.traces is not None]
    if not counted:
        return "What that first call traced was not recorded, so start-up is not told apart from tracing. "
    n, uncounted = results.config.count, [r.mode for r in rows if r not in counted]
    each = join([f"{r.mode} {r.first_call_traces} (of {r.traces} for {n} lengths)" for r in counted]
                + ([f"no count in {join(uncounted)}"] if uncounted else []))
    every = [r.mode for r in counted if r.first_call_traces >= 1 and r.traces >= n]
    once = [r.mode for r in counted if r.first_call_traces >= 1 and r.traces < n]
    text = f"That first call traced or built a graph, by the count right after it: {each}. "
    if every:
        text += (f"{join(every)} traced every new length, so its pass-1 calls traced too and its difference is not "
                 f"tracing. ")
    if once:
        text += f"In {join(once)} the first call's trace is among its difference: start-up and tracing together. "
    return text


@finding("shapes.control_line", MEASURED, headline=True,
         template="Control: blocked (fixed blocks of {n}), pass 2 against pass 3: {verdict}. / Disturbed run: "
                  "blocked's pass 2 and pass 3, identical fixed-shape work, moved apart ({verdict}); ...",
         unless="blocked did not run three passes")
def control_line(view):
    """blocked's pass 2 against its pass 3: identical work, so a difference means the run was disturbed."""
    results, ok = view.results, list(view.ok)
    control = control_verdict(results, ok)
    if control is None:
        return []
    if control.differs:
        return [judged(f"Disturbed run: blocked's pass 2 and pass 3, identical fixed-shape work, moved apart "
                       f"({control.brief()}); no new-length cost and no ratio between modes is stated.", control)]
    return [judged(f"Control: blocked (fixed blocks of {results.config.block}), pass 2 against pass 3: "
                   f"{control.brief()}.", control)]


@finding("shapes.worst", MEASURED, headline=True,
         template="Pass 1, every length new, against {passes}, paired by length: {mode} took a median {time} a call "
                  "more, {verdict} (the largest effect of those that differ, {n} modes judged together). / No mode's "
                  "pass 1 differed from {passes}, paired by length, {n} modes judged together ({mode}: {verdict}).",
         unless="no mode saw a length twice, or the control moved")
def worst(view):
    """The mode whose pass 1 paid most over the later passes, by its judged ratio, every mode's test in the family."""
    results, ok = view.results, list(view.ok)
    costs = [c for c in costs_by_mode(results, ok).values() if c.mode != CONTROL and c.seen is not None]
    control = control_verdict(results, ok)
    if not costs or (control is not None and control.differs):
        return []
    later = later_label(results)
    # The one named is picked after every mode was judged: each of those tests is in the family it is held to.
    tests = [c.penalty for c in costs]
    paid = [c for c in costs if c.penalized]
    if not paid:
        # As the judge counts them: the pairs its paired test needs at each verdict's own level.
        few = [c.penalty for c in costs if c.penalty.outcome == CANNOT_TELL and c.penalty.need]
        needed = max((fewest(v.method, v.level) for v in few), default=0)
        short = f": run with --count {needed + 1} or more" if few else ""   # each phrase says what its test needs
        groups = {}
        for c in costs:
            groups.setdefault((c.penalty.phrase(), c.penalty.n_a), []).append(c.mode)
        each = "; ".join(f"{join(modes)}: {said}" + ("" if "n=" in said else f", n={n} pairs")
                         for (said, n), modes in groups.items())
        together = f", {len(tests)} modes judged together" if len(tests) > 1 else ""
        return [judged(f"No mode's pass 1 differed from {later}, paired by length{together} ({each}){short}.",
                       *tests)]
    most = max(paid, key=lambda c: c.penalty.effect)
    return [judged(f"Pass 1, every length new, against {later}, paired by length: {most.mode} took a median "
                   f"{signed(most.extra_s)} a call more, {most.penalty.brief()} (the largest effect of those that "
                   f"differ, {len(costs)} modes judged together).", most.penalty,
                   *(t for t in tests if t is not most.penalty))]


@finding("shapes.traces", ("traces",), headline=True, template="tf.function traced {mode} {n}x, ...",
         unless="no mode that traces ran")
def traces(view):
    """How many times tf.function traced each mode that traces."""
    traced = [r for r in view.ok if r.mode.startswith("function") or r.mode == "blocked"]
    if not traced:
        return []
    return ["tf.function traced " + ", ".join(f"{r.mode} {r.traces}x" for r in traced) + "."]


ANSWER = (control_line.finding, worst.finding, traces.finding)


@finding("shapes.no_pair", headline=True,
         template="No mode measured a new length against a seen one (--passes 2 or more does).",
         unless="any other answer line is said")
def no_pair(view):
    """No other answer line is said: no mode measured a new length against a seen one."""
    if sentences_of(ANSWER, view.whole or view):
        return []
    return ["No mode measured a new length against a seen one (--passes 2 or more does)."]


# The findings that keep the kinds saved documents already hold (shapes._name).
@finding("shapes.nothing", template="No mode produced a result, so there is nothing to explain.",
         unless="some mode produced a result")
def nothing(view):
    """No mode produced a result to explain."""
    return [] if view.ok else ["No mode produced a result, so there is nothing to explain."]


@finding("shapes._devices", ("device",),
         template="No GPU was visible and every mode ran on {device}, so cuDNN autotuning does not apply here. / A "
                  "GPU was visible ...", unless="no mode produced a result")
def devices(view):
    """Where the modes ran, and whether cuDNN autotuning applies there."""
    results, ok = view.results, list(view.ok)
    if not ok:
        return []
    devices = sorted({short_device(r.device) or "?" for r in ok})
    where = f"every mode ran on {devices[0]}" if len(devices) == 1 else f"the modes ran on {join(devices)}"
    if results.switch == AUTOTUNE:
        return [f"A GPU was visible and {where}; cuDNN autotuning is likely to apply to the convolutions placed on "
                f"it (not measured on a GPU by this tool)."]
    return [f"No GPU was visible and {where}, so cuDNN autotuning does not apply here."]


@finding("shapes.one_pass",
         template="With one pass no length was seen twice, so the per-new-length cost cannot be measured; run with "
                  "--passes 2 or more.", unless="some mode ran two passes or more")
def one_pass(view):
    """No mode saw a length twice: the per-new-length cost cannot be measured."""
    if not view.ok or _passes(view):
        return []
    return ["With one pass no length was seen twice, so the per-new-length cost cannot be measured; run with "
            "--passes 2 or more."]


@finding("shapes._control", MEASURED,
         template="Control: blocked (blocks of {n}) does the same fixed-shape work in its pass 2 and pass 3, ...: "
                  "{verdict}. / Disturbed run: ... / blocked did not run 3 passes ...",
         unless="no mode saw a length twice")
def control_check(view):
    """The control's own verdict: it decides whether any other time or throughput verdict is said."""
    results, ok = view.results, list(view.ok)
    if not _passes(view):
        return []
    control = control_verdict(results, ok)
    if not any(c.seen is not None for c in costs_by_mode(results, ok).values()):
        return []
    if control is None:
        return [f"blocked did not run {CONTROL_PASSES[1] + 1} passes (--passes {CONTROL_PASSES[1] + 1}), so no "
                f"control checked that the passes met the same machine: the verdicts below are not guarded against "
                f"a change of load."]
    work = (f"blocked (blocks of {results.config.block}) does the same fixed-shape work in its pass 2 and pass 3, "
            f"on lengths it has already seen, so they must not differ")
    if control.differs:
        faster = control.n_a - control.above
        return [judged(f"Disturbed run: {work}, yet pass 2 against pass 3, paired by length, "
                       f"{control.says()}, pass 2 the {'faster' if control.smaller else 'slower'} on "
                       f"{faster if control.smaller else control.above} of {control.n_a} lengths. The machine's load "
                       f"or the order of the calls moved the times, so this run states no new-length cost and no "
                       f"ratio between modes; run it again on a quieter machine.", control)]
    return [judged(f"Control: {work}; pass 2 against pass 3, paired by length: {control.says()}.", control)]


@finding("shapes._workers", ("control_s",),
         template="Each mode ran in {n} worker(s); every worker also timed a fixed NumPy sort, the same work in "
                  "each, {n} times beside its calls: a median of {time} to {time} a worker. ... compared one median a "
                  "worker ...; run with --trials 4 or more ...",
         unless="no worker timed the control (documents written before it)")
def workers(view):
    """How many workers each mode had, and the control every one of them ran: a slower worker shows there."""
    rows = [r for r in view.results.rows if r.ok and r.control_s]
    if not rows:
        return []
    off = split(view.results)[1]
    per = {(r.mode, r in off): sum(w.mode == r.mode and (w in off) == (r in off) for w in rows) for r in rows}
    count = min(per.values())
    medians = [statistics.median(r.control_s) for r in rows]
    few = (f"; with {count} worker{'s' if count != 1 else ''} a mode the judge cannot tell modes apart: run with "
           f"--trials {fewest(RANK_SUM)} or more" if count < fewest(RANK_SUM) else "")
    few += "; pass 1 against later passes, and the control within blocked, read each mode's first worker" * (count > 1)
    low, high = fmt_s(min(medians)), fmt_s(max(medians))
    return [f"Each mode ran in {count if len(set(per.values())) == 1 else f'{count} or more'} "
            f"worker{'s' if count != 1 else ''}; every worker also timed a fixed NumPy sort, the same work in each, "
            f"{len(rows[0].control_s)} times beside its calls: a median of {low if low == high else f'{low} to {high}'}"
            f" a worker. Modes, and the switch on against off, are compared one median a worker, guarded by it: where "
            f"two modes' workers' sorts differ, the load moved between them, and that verdict gives the sort's "
            f"numbers, not a ratio{few}."]


@finding("shapes._penalties", MEASURED,
         template="Pass 1 against {passes} in {mode}, paired by length: {verdict}; pass 1 the slower on {n} of {n} "
                  "lengths, a median {time} over a {time} call.", unless="no mode saw a length twice")
def penalties(view):
    """Each mode's pass 1 against its later passes, paired by length, the largest effect first."""
    results, ok = view.results, list(view.ok)
    if not _passes(view):
        return []
    costs, later, out = costs_by_mode(results, ok), later_label(results), []
    judged_costs = [c for c in costs.values() if c.mode != CONTROL and c.seen is not None]
    disturbed = [c for c in judged_costs if c.penalty.outcome == DISTURBED]
    if disturbed:
        verdict = disturbed[0].penalty
        out.append(judged(f"Pass 1 against {later} in {join([c.mode for c in disturbed])}: "
                          f"{verdict.says()}.", verdict))
    for c in sorted((c for c in judged_costs if c not in disturbed), key=lambda c: -c.penalty.effect):
        v = c.penalty
        text = f"Pass 1 against {later} in {c.mode}, paired by length: {v.says()}"
        if v.larger:
            text += (f"; pass 1 the slower on {v.above} of {v.n_a} lengths, a median {signed(c.extra_s)} over a "
                     f"{short_s(c.seen_s)} call")
        elif v.smaller:
            text += f"; pass 1 the faster on {v.n_a - v.above} of {v.n_a} lengths"
        out.append(judged(text + ".", v))
    return out


@finding("shapes._tracing", ("traces",),
         template="For {n} distinct lengths, tf.function traced {mode} {n} times, ... / graph built {n} graph(s) ...",
         unless="no mode saw a length twice, or no trace was counted")
def tracing(view):
    """How many times each mode traced or built a graph for the lengths it ran."""
    results, ok = view.results, list(view.ok)
    if not _passes(view):
        return []
    n, out = results.config.count, []
    traced = [r for r in ok if r.traces is not None and r.mode != "graph"]
    if traced:
        parts = [f"{r.mode} {r.traces} time{'s' if r.traces != 1 else ''}" for r in traced]
        out.append(f"For {n} distinct lengths, tf.function traced " + join(parts) + ".")
    graph = next((r for r in ok if r.mode == "graph" and r.traces is not None), None)
    if graph is not None and graph.traces == 1:
        out.append(f"graph built {graph.traces} graph with a [None, None, {results.config.channels}] placeholder "
                   f"and ran all {n} lengths in it.")
    elif graph is not None:
        out.append(f"graph built {graph.traces} graphs for {n} distinct lengths.")
    return out


@finding("shapes._retracing", ("traces", *MEASURED),
         template="function traced {n} times to function-signature's {n}; the cost of a new length ... in function "
                  "against function-signature, ...: {verdict}: ...",
         unless="function paid no new-length cost, or function-signature did not trace once")
def retracing(view):
    """How much of function's new-length cost retracing explains, when function-signature traced just once."""
    results, ok = view.results, list(view.ok)
    if not _passes(view):
        return []
    costs = costs_by_mode(results, ok)
    f, s = costs.get("function"), costs.get("function-signature")
    traces = {r.mode: r.traces for r in ok}
    once, many = traces.get("function-signature"), traces.get("function")
    # The two differ by retracing alone only if function-signature traced once and function more than that.
    if not (f and s and f.penalized and once == 1 and many is not None and many > once):
        return []
    retrace = retracing_verdict(results, f.control)
    head = (f"function traced {many} times to function-signature's {once}; the cost of a new length (pass 1 minus "
            f"{later_label(results)}, length by length) in function against function-signature, {ACROSS}: "
            f"{retrace.says(signed)}")
    if retrace.larger:
        return [judged(f"{head}: that much of function's new-length cost is absent where the signature is fixed, and "
                       f"the trace counts say function retraced.", retrace)]
    return [judged(f"{head}: this run does not show function's new-length cost to be retracing"
                   f"{more_workers(retrace)}.", retrace)]


def _throughputs(results, ok):
    """blocked's throughput against every other mode's, on new lengths and on lengths already seen, one median a
    worker."""
    costs, later = costs_by_mode(results, ok), later_label(results)
    others = [c.mode for c in costs.values() if c.mode != CONTROL and c.seen is not None]
    control = control_verdict(results, ok)
    head = f"blocked's throughput (blocks of {results.config.block})"
    blocked = workers_of(results, CONTROL)
    verdicts = {what: {m: across(results, blocked, workers_of(results, m), what, control) for m in others}
                for what in (new_khz, seen_khz)}
    if control is not None and control.differs:
        # Two numbers from a moving machine make no ratio: the control's own numbers are all that is printed.
        moved = [v for each in verdicts.values() for v in each.values()]
        return [judged(f"{head} against every other mode: {moved[0].says()}.", *moved)]
    out = []
    for what, said in ((new_khz, f"{head} on lengths seen for the first time (pass 1 against pass 1, {ACROSS})"),
                       (seen_khz, f"{head} on lengths already seen ({later} against {later}, {ACROSS})")):
        text, told = _against_every(verdicts[what], said)
        out.append(judged(text + ".", *told))
    return out


@finding("shapes._remedy", MEASURED,
         template="blocked's throughput (blocks of {n}) on lengths seen for the first time (...): higher than every "
                  "other mode / ... (against {mode}: {verdict}; ...). function-signature, which fixes only the input "
                  "signature (it traced {n} times), beside blocked, ...: its pass 1 against {passes}, paired by "
                  "length: {verdict}; {meaning}.", unless="blocked or every other mode saw no length twice")
def remedy(view):
    """blocked's throughput against every other mode's; where the control did not move, function-signature (with
    its trace count) tells the fixed signature's part apart."""
    results, ok = view.results, list(view.ok)
    if not (_passes(view) and remedy_compared(results, ok)):
        return []
    control = control_verdict(results, ok)
    if control is not None and control.differs:
        return _throughputs(results, ok)
    traced = view.with_evidence(("traces",))
    return _throughputs(results, ok) + _signature_alone(traced.results, list(traced.ok))


@finding("shapes._switch", (*MEASURED, "env"),
         template="{switch} in {mode}: pass 1 against {passes}, paired by length, with {switch}=1: {verdict}; with "
                  "{switch}=0: {verdict}. / ... was not switched off in this run (no --switch-modes).",
         unless="the run named no switch (oneDNN, cuDNN autotuning)")
def switch_off(view):
    """The device's switch (oneDNN, cuDNN autotuning) on against off, mode by mode."""
    results, ok, off = view.results, list(view.ok), list(view.off)
    if not _passes(view):
        return []
    switch = results.switch
    if switch is None:
        return []
    name = SWITCH_NAMES[switch]
    if not results.config.switch_modes:
        return [f"{name} was not switched off in this run (no --switch-modes)."]
    later, out, control = later_label(results), [], control_verdict(results, ok)
    untested = " (this GPU path is untested)" if switch == AUTOTUNE else ""
    for r_off in off:
        r_on = next((r for r in ok if r.mode == r_off.mode), None)
        if r_on is None or not (timed(r_on) and timed(r_off)):
            continue
        on, of = (run_cost(results, r, control) for r in (r_on, r_off))
        if on.seen is None:
            continue
        mode = r_on.mode
        if control is not None and control.differs:
            # One sentence for the lot: each verdict would print the same control numbers and no ratio.
            moved = on.penalty
            out.append(judged(f"{name} in {mode}{untested}, on against off: no time or throughput is compared, "
                              f"{moved.says()}.", moved))
            continue
        out.append(judged(f"{name} in {mode}{untested}: pass 1 against {later}, paired by length, with "
                          f"{switch}=1: {on.penalty.says()}; with {switch}=0: {of.penalty.says()}.",
                          on.penalty, of.penalty))
        workers = workers_of(results, mode), workers_of(results, mode, off=True)
        added = across(results, *workers, extra, control, scale="shift")
        out.append(judged(f"The time a new length added to a call in {mode} with {name} on against off, "
                          f"{ON_OFF}: {added.says(signed)}" +
                          (f": {name} accounts for part of each new length's cost in {mode}." if added.larger
                           else f"{more_workers(added)}."), added))
        first, again = (across(results, *workers, what, control) for what in (new_khz, seen_khz))
        out.append(judged(f"{mode}'s throughput with {name} on against off, {ON_OFF}: on lengths seen for "
                          f"the first time (pass 1 against pass 1) {first.says()}; on lengths already seen "
                          f"({later} against {later}) {again.says()}{more_workers(first, again)}.", first, again))
    return out


@finding("shapes._first_call", MEASURED,
         template="The very first call in each of the {n} main workers took {time}; against the same worker's median "
                  "pass-1 call, paired by worker: {verdict}. ...", unless="no mode saw a length twice")
def first_call(view):
    """The very first call of each worker against that worker's median pass-1 call: pairs, one per worker; what the
    first call traced (TensorFlow's own count after it) says whether the difference is start-up alone."""
    results, ok = view.results, list(view.ok)
    if not _passes(view):
        return []
    costs = costs_by_mode(results, ok)
    if not costs:
        return []
    v = judge([c.first_s for c in costs.values()], [c.new_s for c in costs.values()], paired=True)
    low, high = min(c.first_s for c in costs.values()), max(c.first_s for c in costs.values())
    took = fmt_s(high) if fmt_s(low) == fmt_s(high) else f"{fmt_s(low)} to {fmt_s(high)}"
    each = "the worker" if len(costs) == 1 else f"each of the {len(costs)} main workers"
    return [judged(f"The very first call in {each} took {took}; against the same worker's median pass-1 call, paired "
                   f"by worker: {v.says()}. " + _first_traced([r for r in ok if r.mode in costs], results)
                   + "The first length is left out of the per-length statistics.", v)]


@finding("shapes.accuracy", ("max_rel_err",),
         template="Every mode (that finished) matched a float64 NumPy reference to {error} relative error or better.",
         unless="no mode saw a length twice")
def accuracy(view):
    """The largest relative error of any mode against a float64 NumPy reference."""
    if not (_passes(view) and view.ok):
        return []
    every = "Every mode" if all(r.ok for r in (view.whole or view).results.rows) else "Every mode that finished"
    return [f"{every} matched a float64 NumPy reference to "
            f"{max(r.max_rel_err for r in (*view.ok, *view.off)):.2e} relative error or better."]


def answer_and_findings(results):
    """(the answer, the findings): every shapes finding said over one view of the results, split by headline."""
    return answer_then_findings(FINDINGS["shapes"], lambda: View.of(results), SHOWN)
