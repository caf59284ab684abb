"""A pitfalls lesson's cases in words: their runs, one judged against another, how their times and bytes are
written, and the longer sentences of pitfalls' findings, each from a run's own cases."""

import statistics
import textwrap

from tfgraphs.findings.evidence import judged
from tfgraphs.records.judge import CANNOT_TELL, judge, one_against
from tfgraphs.spec.pitfalls import LEAK_AGAIN, RAISED_FOLD_LIMIT
from tfgraphs.spec.tflog import NETWORK_OPS, runs_as
from tfgraphs.units import fmt_bytes, fmt_s, join


def runs_of(case):
    """Every run of a case: its repeats, or its one timed run."""
    return case.runs_s or (case.seconds,)


def typical(case):
    """The median of a case's runs."""
    return statistics.median(runs_of(case))


def against(case, base):
    """case's runs against base's, independent samples (a single run is n=1): the judge's verdict."""
    return judge(runs_of(case), runs_of(base))


def paired_runs(case, base):
    """True when both cases hold as many repeats, run in turns (the same step in both conditions)."""
    return bool(case.runs_s and base.runs_s and len(case.runs_s) == len(base.runs_s))


def says(verdict):
    """The verdict as printed; one run against repeats that cannot tell says whether more repeats could."""
    if verdict.outcome == CANNOT_TELL and min(verdict.n_a, verdict.n_b) == 1 < max(verdict.n_a, verdict.n_b):
        # "a rank test needs 4 a side" does not fit a single run: what it needs is enough repeats beside it.
        # At the level its family holds it to: 40 repeats alone, 80 in a family of two (Holm).
        fewest_repeats = one_against(verdict.level)
        more = ("" if max(verdict.n_a, verdict.n_b) >= fewest_repeats else
                f" (one run is placed among repeats only from {fewest_repeats} of them: --steps {fewest_repeats})")
        return f"cannot tell with {verdict.samples}{more} ({verdict.detail(fmt_s, samples=False)})"
    return verdict.says(fmt_s)


def short_s(seconds):
    """A duration, in microseconds when under a millisecond."""
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else fmt_s(seconds)


def signed_bytes(series):
    """The change from the first to the last of a series of byte counts, signed: "+1.2 MB"."""
    change = series[-1] - series[0]
    return ("-" if change < 0 else "+") + fmt_bytes(abs(change))


def set_against(what, case, base, base_name):
    """'{what} took 36.8 ms against 144 us for its repeat: <verdict>', and the verdict."""
    v = against(case, base)
    return f"{what} took {short_s(case.seconds)} against {repeats_text(base, base_name)}: {says(v)}", v


def repeats_text(base, name):
    """'its repeats' median 144 us' of several repeats, '144 us for its repeat' of one."""
    many = len(runs_of(base)) > 1
    return f"{name}s' median {short_s(typical(base))}" if many else f"{short_s(typical(base))} for {name}"


# The longer sentences of pitfalls' findings, each from a run's own cases.

def executor_cache_headline(variant, first, repeat, new, new_repeat):
    """executor-cache's answer line: its first run and its new fetches, each against its repeats."""
    first_v, new_v = against(first, repeat), against(new, new_repeat)
    runs = (f"first run {fmt_s(first.seconds)} against {repeats_text(repeat, 'its repeat')}",
            f"new fetches {fmt_s(new.seconds)} against {repeats_text(new_repeat, 'their repeat')}")
    if first_v.brief() == new_v.brief():
        line = f"{runs[0]}, {runs[1]}: each {first_v.brief()}"
    elif first_v.differs and new_v.differs and first_v.samples == new_v.samples:
        line = (f"first run {fmt_s(first.seconds)}, new fetches {fmt_s(new.seconds)}, against their repeats' medians, "
                f"{short_s(typical(repeat))} and {short_s(typical(new_repeat))}: both differ ({first_v.effect_text()}; "
                f"{new_v.effect_text()}; {first_v.samples})")
    else:
        line = f"{runs[0]}, {first_v.brief()}; {runs[1]}, {new_v.brief()}"
    # One run is placed among its repeats only from so many of them, at its family's level: say how to get there.
    fewest_repeats = max(one_against(v.level) for v in (first_v, new_v))
    short = any(v.outcome == CANNOT_TELL and min(v.n_a, v.n_b) == 1 < max(v.n_a, v.n_b) < fewest_repeats
                for v in (first_v, new_v))
    return [judged(f"executor-cache, {variant}: {line}" + (f"; --steps {fewest_repeats}" if short else "") + ".",
                   first_v, new_v)]


def built(variant, what, case, base, shows):
    """A run against its repeats: it built an executor when the judge finds it the slower and a new executor shows
    in this run's times (shows); else the verdict alone."""
    line, v = set_against(what, case, base, "its repeat")
    if v.larger and not shows:
        return [judged(f"{variant}: {line}; a new fetch list, which builds an executor too, was not found slower than "
                       f"its repeat, so this run does not show the extra to be the executor.", v)]
    why = (": a set of fetches the session had not run, for which DirectSession builds an executor (keyed by the "
           "sorted names); how the time splits inside that run is not measured here." if v.larger else ".")
    return [judged(f"{variant}: {line}{why}", v)]


def real_callable(variant, real, real_first, real_repeat):
    """A callable made from CallableOptions: what making it took, and its first call against its repeats."""
    first = against(real_first, real_repeat)
    head = (f"{variant}: a callable made by Session._make_callable_from_options(CallableOptions) took "
            f"{fmt_s(real.seconds)} to make and {fmt_s(real_first.seconds)} at its first call, against "
            f"{repeats_text(real_repeat, 'its repeat')}")
    # Making a callable and running one are unlike work: only its first call is judged, against its repeats. One call
    # is one sample, which never shows no difference: that it paid nothing a repeat does not is not said.
    return [judged(f"{head}; its first call against a repeat: {says(first)}.", first)]


def step_cost(variant, leak, once):
    """The leaky loop's steps after the first against the fixed loop's, step by step (pairs: the loops take turns),
    when the fixed loop's op computes the network (its partition graphs say so)."""
    a, b = statistics.median(leak.step_s[1:]), statistics.median(once.step_s[1:])
    spread = (f"{fmt_s(a)} median ({fmt_s(min(leak.step_s[1:]))} to {fmt_s(max(leak.step_s[1:]))} over "
              f"{len(leak.step_s) - 1} steps)")
    if once.computes is not None and not once.computes["Conv2D"]:
        # A folded op computes nothing: a ratio against it would set a whole network against a constant.
        return [f"{variant}: after the first step, a step that created an op took {spread}; the op made once "
                f"was folded into a constant (no Conv2D in the graph that ran"
                + (f"; the Const {join(once.replaced_by_const)} stands in its place" if once.replaced_by_const else "")
                + f": partition graphs), so its {short_s(b)} steps compute nothing and are no baseline for the leaky "
                f"steps (whose graphs that ran were not recorded)."]
    v = judge(leak.step_s[1:], once.step_s[1:], paired=True)
    reused = ("a step that reused its op and still computed the network (partition graphs)" if once.computes else
              "a step that reused its op (whether that op still computed the network was not measured)")
    line = (f"{variant}: after the first step, a step that created an op took {spread} against {short_s(b)} "
            f"median for {reused}, slower on {v.above} of {v.n_a} steps: {v.says(fmt_s)}")
    if v.larger:
        return [judged(line + ": every new op is a new fetch, which the session's executor cache, keyed by feeds, "
                       "fetches and targets (direct_session.cc), has not seen; how the extra splits among making the "
                       "op, adding it to the session's graph and the run is not measured here.", v)]
    return [judged(line + ".", v)]


def extend_between(a, leak_a, b, leak_b):
    """A leaky step's Extend in variant a against variant b, the slower first."""
    (a, ta, ga), (b, tb, gb) = sorted(((a, leak_a.extend_s[1:], leak_a.graph_bytes),
                                       (b, leak_b.extend_s[1:], leak_b.graph_bytes)),
                                      key=lambda t: -statistics.median(t[1]) if t[1] else 0)
    if not ta or not tb:
        return []
    v = judge(ta, tb)
    # One worker a variant: the verdict is on these two workers' steps, a worker's own speed not separated.
    return [judged(f"A leaky step's Extend took {short_s(statistics.median(ta))} in {a}, a graph of {ga:,} bytes, "
                   f"against {short_s(statistics.median(tb))} in {b}, {gb:,} bytes, one worker each: {v.says(fmt_s)}; "
                   f"the steps are these two workers', whose own speed the test does not separate.", v)]


def default_stored(x, plain, not_fed):
    """The Const bytes placeholder_with_default(X) added to the graph, against X's."""
    stored = not_fed.const_bytes - plain.const_bytes
    if stored < x:
        return [f"placeholder_with_default(X) added {stored:,} Const bytes to the graph, less than X's {x:,}: the "
                f"default is not stored whole."]
    return [f"placeholder_with_default(X) stored its default as a Const: {not_fed.graph_bytes:,} graph bytes "
            f"({not_fed.const_bytes:,} in Consts) against {plain.graph_bytes:,} for a plain placeholder, "
            f"{stored / x:.2f}x X's {x:,} bytes. The GraphDef is the same whether or not it is fed at run time: a "
            f"feed goes to sess.run, not into the graph."]


def default_ran(plain, not_fed, fed):
    """What ran with the default not fed and fed (partition graphs), and their first runs."""
    unfed = ("not folded: Conv2D still ran" if not_fed.computes["Conv2D"] else
             f"folded: the Const {join(not_fed.replaced_by_const)} stands in its place" if not_fed.replaced_by_const
             else "folded: no Conv2D ran")
    fed_text = "Conv2D ran" if fed.computes["Conv2D"] else "no Conv2D ran"
    return [f"Not fed, the default is a constant the classic folder may evaluate, and the network was {unfed}; "
            f"fed, {fed_text} (partition graphs). First runs, one sample each: {fmt_s(not_fed.seconds)} not "
            f"fed, {fmt_s(fed.seconds)} fed, {fmt_s(plain.seconds)} for a plain placeholder. Fed or not, "
            f"graph_execution_state.cc hands Grappler the whole graph, the default's Const included, before "
            f"pruning it to the fetch and feeds; how much of the fed first run that is, this lesson does not "
            f"measure."]


def folded(case):
    """One folding case: whether the graph that ran was folded, and what kept it from folding."""
    head = f"{case.case}: "
    if not case.computes["Conv2D"]:
        return (head + "folded: the graph that ran holds no Conv2D"
                + (f", and the Const {join(case.replaced_by_const)}, made by folding, stands in its place"
                   if case.replaced_by_const else "") + " (partition graphs); its second run took "
                f"{short_s(case.later_s)} against a first run of {fmt_s(case.seconds)}.")
    if case.stateful:
        return (head + f"not folded: Conv2D still ran, fed by {join(case.stateful)}, which TensorFlow's op "
                f"registry marks stateful; no constant folder evaluates a stateful op.")
    if case.fed:
        return (head + f"not folded: Conv2D still ran behind {case.fed} fed _Arg node"
                f"{'s' if case.fed > 1 else ''} (partition graphs): Conv2D needs the values fed for X, so it cannot "
                f"be folded.")
    classic = [s for s in case.folder_log or () if s["stage"] == "classic/constant_folding"]
    logged = [s for s in classic if s.get("foldable")]
    # "Constant foldable N : M" counts node ids of a new Graph, whose _SOURCE and _SINK are two of them.
    note = (f"; the classic folder logged \"Constant foldable {logged[0]['foldable']} : {logged[0]['nodes']}\", "
            f"{logged[0]['foldable'] - 2} foldable nodes besides _SOURCE and _SINK, and no replacement"
            if logged and not any("replaced" in s for s in classic) else "")
    return head + f"not folded: Conv2D still ran and folding made no Const (partition graphs){note}."


def raised_limit(whole, raised):
    """The whole output folded under a raised limit and not under the default one; what Grappler did meanwhile."""
    if not (whole.computes["Conv2D"] and not raised.computes["Conv2D"]):
        return []
    grappler = [s for s in raised.folder_log or () if s["stage"] == "grappler/constant_folding"]
    kept = (" Grappler's constant_folding passes left the node count unchanged even then: its own limit is "
            "separate (grappler/optimizers/constant_folding.cc)."
            if grappler and not any(s["nodes_change"] for s in grappler) else "")
    return [f"With OptimizerOptions.max_folded_constant_in_bytes = {RAISED_FOLD_LIMIT:,} the classic folder "
            f"replaced the whole output, which it did not under its default limit.{kept}"]


def pruned(variant, case):
    """One pruning case: the network's kernels it ran, and whether the counter's assign_add ran."""
    network = [op for op in NETWORK_OPS if any(runs_as(k, op) for k in case.kernels)]
    computed = f"ran {join(network)}" if network else "ran no kernel of the network"
    bumped = [k for k in case.kernels if k.startswith("AssignAdd")]
    side = (f"and {join(bumped)}: the counter read {case.counter_after} after it" if bumped else
            f"and no assign_add: the counter still read {case.counter_after}")
    returned = "; sess.run returned None" if case.returned_none else ""
    return f"{variant}: {case.case} {computed} {side} (step stats){returned}."


def alignment(variant, aligned, unaligned):
    """An unaligned feed's runs against an aligned copy's, the two taking turns in one session (pairs)."""
    pairs = paired_runs(unaligned, aligned)
    v = judge(runs_of(unaligned), runs_of(aligned), paired=pairs)
    slower = f", the unaligned feed slower in {v.above} of {v.n_a} pairs" if pairs else ""
    head = (f"{variant}: feeding X from data {unaligned.address_mod_64} bytes past a 64-byte boundary took "
            f"{fmt_s(unaligned.seconds)} a run (median of {len(runs_of(unaligned))}) against "
            f"{fmt_s(aligned.seconds)} from a 64-byte-aligned copy, fetching only tf.size(X){slower}: "
            f"{v.says(fmt_s)}")
    if v.larger:
        # ndarray_tensor.cc hands TensorFlow an aligned array's own memory and copies any other one. The copy inside
        # TensorFlow is not traced, so the extra is set beside a NumPy copy timed in the same worker, not called one.
        copies = sorted({c.copy_s for c in (aligned, unaligned) if c.copy_s is not None})
        timed = " and ".join(fmt_s(c) for c in copies)
        beside = (f". The unaligned feed added {fmt_s(unaligned.seconds - aligned.seconds)} a run (medians); a NumPy "
                  f"copy of X took {timed} when timed in this worker; the copy TensorFlow makes is not traced"
                  if copies else "")
        return judged(head + beside + ".", v)
    return judged(head + ".", v)


def leaked(variant, x, cases):
    """The resident memory new sets of targets kept, and the first set run again at the end."""
    new = [c for c in cases if c.case != LEAK_AGAIN]
    again = next((c for c in cases if c.case == LEAK_AGAIN), None)
    if not new:
        return []
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in new]
    sentences = [f"{variant}: {len(new)} new sets of targets in one session grew resident memory by "
                 f"{fmt_bytes(sum(grew))} in all, {fmt_bytes(statistics.median(grew))} median per new set "
                 f"({statistics.median(grew) / x:.2f}x X's {fmt_bytes(x)}); RSS, one sample per set."]
    if again is not None:
        first = new[0]
        # One sample each: the times are given, not judged; RSS shows only what went back to the system.
        sentences.append(f"{variant}: {first.case} run again at the end took {fmt_s(again.seconds)} against "
                         f"{fmt_s(first.seconds)} the first time (one sample each), and resident memory changed by "
                         f"{signed_bytes(again.rss_bytes)}: none of what the earlier sets added went back to the "
                         f"system (RSS; an allocator may also keep memory it freed).")
    return sentences


SHOWN_LESSONS = 4   # lessons headlined; a last line says how many more the findings cover
ANSWER_LINES = 5     # lines of text the headlines may take, before the figure's line
ANSWER_COLUMNS = 100  # the page's width when it is not a terminal


def strongest_first(headlines):
    """The headlines, those whose verdicts found a difference first, then those stating what was seen, then those
    whose verdicts could not tell or found none; in their own order within each."""
    def rank(said):
        verdicts = getattr(said, "verdicts", ())
        return 0 if any(v.differs for v in verdicts) else 2 if verdicts else 1
    return sorted(headlines, key=rank)


def fitting(headlines):
    """How many headlines fit the answer: at most SHOWN_LESSONS, and ANSWER_LINES lines of ANSWER_COLUMNS with the
    line that names the rest."""
    lines = [len(textwrap.wrap(s, ANSWER_COLUMNS, subsequent_indent="  ")) for s in headlines]
    if len(headlines) <= SHOWN_LESSONS and sum(lines) <= ANSWER_LINES:
        return len(headlines)
    shown = 0
    while shown < min(len(headlines), SHOWN_LESSONS) and sum(lines[:shown + 1]) + 1 <= ANSWER_LINES:
        shown += 1
    return shown
