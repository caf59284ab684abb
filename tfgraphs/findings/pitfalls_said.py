"""The sentences of pitfalls' findings and answer lines, lesson by lesson, each from a run's own cases; which are
said, and over which cases, is declared in findings.pitfalls."""

import math
import statistics
import textwrap

from tfgraphs.findings.cases import against, paired_runs, runs_of, says, short_s, typical
from tfgraphs.findings.evidence import judged
from tfgraphs.records.judge import CANNOT_TELL, ONE_AGAINST, judge
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
from tfgraphs.spec.pitfalls import LEAK_AGAIN
from tfgraphs.units import fmt_bytes, fmt_s, join

SHOWN_LESSONS = 4   # lessons headlined; a last line says how many more the findings cover
ANSWER_LINES = 5     # lines of text the headlines may take, before the figure's line
ANSWER_COLUMNS = 100  # the page's width when it is not a terminal


def _set_against(what, case, base, base_name):
    """'{what} took 36.8 ms against 144 us for its repeat: <verdict>', and the verdict."""
    v = against(case, base)
    return f"{what} took {short_s(case.seconds)} against {short_s(typical(base))} for {base_name}: {says(v)}", v


def _built(variant, what, case, base, shows):
    """A run against its repeats: it built an executor when the judge finds it the slower and a new executor shows
    in this run's times (shows); else the verdict alone."""
    text, v = _set_against(what, case, base, "its repeat")
    if v.larger and not shows:
        return [judged(f"{variant}: {text}; a new fetch list, which builds an executor too, was not found slower than "
                       f"its repeat, so this run does not show the extra to be the executor.", v)]
    built = (": a set of fetches the session had not run, for which DirectSession builds an executor (keyed by the "
             "sorted names); how the time splits inside that run is not measured here." if v.larger else ".")
    return [judged(f"{variant}: {text}{built}", v)]


def _new_feeds(variant, case):
    return [f"{variant}: feeding an intermediate tensor (pool) made a new feed set; that run took "
            f"{fmt_s(case.seconds)} with only relu left to compute."]


def _reordered(variant, reordered, repeat, new, shows):
    """The same fetches in another order, against the repeat of that list; what the new list took beside it. "No new
    executor" needs a run where a new one shows in the times (shows)."""
    text, v = _set_against("the same fetches reordered ([pool, relu])", reordered, repeat, "that list's repeat")
    if v.same and shows:
        return [judged(f"{variant}: {text}: the order of the fetches does not make a new executor.", v)]
    if v.larger:
        return [judged(f"{variant}: {text}; the new fetch list itself took {fmt_s(new.seconds)}.", v)]
    return [judged(f"{variant}: {text}.", v)]


def _callable(variant, made, first, repeat):
    """make_callable with a feed_list: when it built its executor."""
    text, v = _set_against("its first call", first, repeat, "its repeat")
    # client/session.py: make_callable returns a function that calls _call_tf_sessionrun, as sess.run does.
    wrapped = f"{variant}: make_callable(conv, feed_list=[...]) returned in {short_s(made.seconds)}; {text}"
    if v.larger:
        return [judged(wrapped + ": make_callable returns a function that runs the session as sess.run does "
                       "(client/session.py), so the executor was built at the first call.", v)]
    return [judged(wrapped + ".", v)]


def _real_callable(variant, real, real_first, real_repeat):
    """A callable made from CallableOptions: whether it built its executor when made."""
    first = against(real_first, real_repeat)
    head = (f"{variant}: a callable made by Session._make_callable_from_options(CallableOptions) took "
            f"{fmt_s(real.seconds)} to make and {fmt_s(real_first.seconds)} at its first call, against "
            f"{short_s(typical(real_repeat))} a repeat")
    # Making a callable and running one are unlike work: only its first call is judged, against its repeats.
    if first.same:
        return [judged(head + f": its first call against a repeat: {says(first)}; its first call paid nothing a "
                       f"repeat does not.", first)]
    return [judged(f"{head}; its first call against a repeat: {says(first)}.", first)]


def meta_limit(case, batch):
    """(bytes per example, first batch whose .meta passes 2 GiB or None) from the two exports of a .meta case."""
    if case.probe_batch is None or batch == case.probe_batch:
        return None, None
    per_example = (case.bytes - case.probe_bytes) / (batch - case.probe_batch)
    if per_example < 1:   # under a byte per example: the batch written in its shapes, not data
        return per_example, None
    overhead = max(0.0, case.probe_bytes - case.probe_batch * per_example)
    # The slope is not a whole number of bytes (protobuf framing grows in steps); rounding it up would move the batch.
    return per_example, math.floor((GRAPHDEF_LIMIT - 1 - overhead) / per_example) + 1


def _held(variant, x, cases):
    held, free, said = [c for c in cases if c.holds_data], [c for c in cases if not c.holds_data], []
    if held:
        said.append(f"{variant}: X ({fmt_bytes(x)}) was found, byte for byte, in the "
                    + join(f"{c.case} ({c.bytes:,} bytes)" for c in held) + ".")
    if free:
        said.append(f"{variant}: X was not in the " + join(f"{c.case} ({c.bytes:,} bytes)" for c in free) + ".")
    return said


def _frozen(variant, frozen, graph):
    if not (frozen and frozen.holds_data and graph and not graph.holds_data):
        return []
    return [f"{variant}: freezing (convert_variables_to_constants) turned the variable back into a "
            f"Const: {graph.bytes:,} -> {frozen.bytes:,} bytes."]


def _checkpoint(variant, x, checkpoint):
    if not (checkpoint and checkpoint.holds_data):
        return []
    return [f"{variant}: the checkpoint holds the variable's value, X itself: {checkpoint.bytes:,} bytes "
            f"for {x:,} bytes of X."]


def _meta(variant, meta, batch):
    per_example, over = meta_limit(meta, batch) if meta else (None, None)
    if over is not None:
        return [f"{variant}: the .meta grew by {per_example:,.0f} bytes per example (batch "
                f"{meta.probe_batch} against {batch:,}), so exporting it would pass 2 GiB at batch {over:,}, "
                f"{over / batch:.1f}x this run's batch (predicted, not allocated)."]
    if per_example is not None:
        return [f"{variant}: the .meta did not grow with the data ({meta.probe_bytes:,} bytes at batch "
                f"{meta.probe_batch}, {meta.bytes:,} at {batch:,}, under a byte per example): the batch does not "
                f"bring it near 2 GiB."]
    return []


def _default_stored(x, plain, not_fed):
    stored = not_fed.const_bytes - plain.const_bytes
    if stored < x:
        return [f"placeholder_with_default(X) added {stored:,} Const bytes to the graph, less than X's {x:,}: the "
                f"default is not stored whole."]
    return [f"placeholder_with_default(X) stored its default as a Const: {not_fed.graph_bytes:,} graph bytes "
            f"({not_fed.const_bytes:,} in Consts) against {plain.graph_bytes:,} for a plain placeholder, "
            f"{stored / x:.2f}x X's {x:,} bytes. The GraphDef is the same whether or not it is fed at run time: a "
            f"feed goes to sess.run, not into the graph."]


def _default_ran(plain, not_fed, fed):
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


def _finalized(variant, error):
    """What graph.finalize() made of the leaky step: an error, or none."""
    if error:
        return [f"{variant}: `graph.finalize()` turned the leaky step into an immediate error: \"{error}\""]
    return [f"{variant}: after `graph.finalize()` the leaky step still created its op without error."]


# The answer's lines: one a lesson, its headline measurement.

def _executor_cache(variant, first, repeat, new, new_repeat):
    first_v, new_v = against(first, repeat), against(new, new_repeat)
    runs = (f"first run {fmt_s(first.seconds)} against its repeat {short_s(typical(repeat))}",
            f"new fetches {fmt_s(new.seconds)} against theirs {short_s(typical(new_repeat))}")
    if first_v.brief() == new_v.brief():
        told = f"{runs[0]}, {runs[1]}: each {first_v.brief()}"
    elif first_v.differs and new_v.differs and first_v.samples == new_v.samples:
        told = (f"first run {fmt_s(first.seconds)}, new fetches {fmt_s(new.seconds)}, against repeats of "
                f"{short_s(typical(repeat))} and {short_s(typical(new_repeat))}: both differ ({first_v.effect_text()}; "
                f"{new_v.effect_text()}; {first_v.samples})")
    else:
        told = f"{runs[0]}, {first_v.brief()}; {runs[1]}, {new_v.brief()}"
    # One run is placed among its repeats only from ONE_AGAINST of them: say how to get there.
    short = any(v.outcome == CANNOT_TELL and min(v.n_a, v.n_b) == 1 < max(v.n_a, v.n_b) < ONE_AGAINST
                for v in (first_v, new_v))
    return [judged(f"executor-cache, {variant}: {told}" + (f"; --steps {ONE_AGAINST}" if short else "") + ".",
                   first_v, new_v)]


def _graph_growth(variant, leak, once):
    grew = sorted({b - a for a, b in zip(leak.nodes, leak.nodes[1:])})
    per = f"{grew[0]}" if len(grew) == 1 else f"{grew[0]}-{grew[-1]}"
    grown = (f"graph-growth, {variant}: +{per} nodes a step ({leak.nodes[0]} -> {leak.nodes[-1]}), a step "
             f"{short_s(statistics.median(leak.step_s[1:]))}")
    if once.computes is not None and not once.computes["Conv2D"]:
        # Folded, the fixed loop computes nothing: no baseline to set the leaky step against, so no contrast either.
        return [grown + "; the op made once was folded to a constant (partition graphs), so there is no baseline."]
    head = f"{grown}; {short_s(statistics.median(once.step_s[1:]))} with the op made once"
    v = judge(leak.step_s[1:], once.step_s[1:], paired=True)
    return [judged(f"{head}: {v.brief(fmt_s)}.", v)]


def _saved_copies(variant, *cases):
    held = [c.case for c in cases if c.holds_data]
    found = join(held) if held else "none"
    return [f"saved-copies, {variant}: X is, byte for byte, in {found} ({len(held)} of {len(cases)} files)."]


def _placeholder_default(variant, plain, not_fed, fed):
    return [f"placeholder-default: {not_fed.const_bytes:,} Const bytes in the graph, against "
            f"{plain.const_bytes:,} for a plain placeholder."]


def _folding(variant, *cases):
    folded = [c.case for c in cases if not c.computes["Conv2D"]]
    return [f"folding: the network was folded in {join(folded) if folded else 'no case'} (of {len(cases)}; "
            f"partition graphs)."]


def _feed_alignment(variant, aligned, unaligned):
    v = judge(runs_of(unaligned), runs_of(aligned), paired=paired_runs(unaligned, aligned))
    return [judged(f"feed-alignment, {variant}: an unaligned feed took {fmt_s(unaligned.seconds)} against "
                   f"{fmt_s(aligned.seconds)} aligned: {v.brief(fmt_s)}.", v)]


def _executor_leak(variant, *cases):
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in cases if c.case != LEAK_AGAIN]
    return [f"executor-leak, {variant}: {len(grew)} new sets of targets grew resident memory by {fmt_bytes(sum(grew))} "
            f"(RSS, one sample per set)."]


def _more(lessons):
    return [f"And {join(lessons)}: in the findings below."]


def _fitting(said):
    """How many headlines fit the answer: at most SHOWN_LESSONS, and ANSWER_LINES lines of ANSWER_COLUMNS with the
    line that names the rest."""
    lines = [len(textwrap.wrap(s, ANSWER_COLUMNS, subsequent_indent="  ")) for s in said]
    if len(said) <= SHOWN_LESSONS and sum(lines) <= ANSWER_LINES:
        return len(said)
    shown = 0
    while shown < min(len(said), SHOWN_LESSONS) and sum(lines[:shown + 1]) + 1 <= ANSWER_LINES:
        shown += 1
    return shown
