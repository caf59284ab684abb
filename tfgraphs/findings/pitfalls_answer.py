"""pitfalls' answer block: one line per lesson, its headline measurement, from this run's cases."""

import statistics
import textwrap

from tfgraphs.findings.cases import against, paired_runs, runs_of, short_s, typical
from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.judge import CANNOT_TELL, ONE_AGAINST, judge
from tfgraphs.spec.pitfalls import ALIGNMENT_CASES, DEFAULT_CASES, FOLDING_CASES, GROWTH_CASES, LEAK_AGAIN
from tfgraphs.units import fmt_bytes, fmt_s, join

SHOWN_LESSONS = 4   # lessons headlined; a last line says how many more the findings cover
ANSWER_LINES = 5     # lines of text the headlines may take, before the figure's line
ANSWER_COLUMNS = 100  # the page's width when it is not a terminal


@rests_on("seconds")
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


@rests_on("nodes", "step_s")
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


@rests_on("bytes", "holds_data")
def _saved_copies(variant, *cases):
    held = [c.case for c in cases if c.holds_data]
    found = join(held) if held else "none"
    return [f"saved-copies, {variant}: X is, byte for byte, in {found} ({len(held)} of {len(cases)} files)."]


@rests_on("graph_bytes", "const_bytes")
def _placeholder_default(variant, plain, not_fed, fed):
    return [f"placeholder-default: {not_fed.const_bytes:,} Const bytes in the graph, against "
            f"{plain.const_bytes:,} for a plain placeholder."]


@rests_on("computes")
def _folding(variant, *cases):
    folded = [c.case for c in cases if not c.computes["Conv2D"]]
    return [f"folding: the network was folded in {join(folded) if folded else 'no case'} (of {len(cases)}; "
            f"partition graphs)."]


@rests_on("seconds", "runs_s")
def _feed_alignment(variant, aligned, unaligned):
    v = judge(runs_of(unaligned), runs_of(aligned), paired=paired_runs(unaligned, aligned))
    return [judged(f"feed-alignment, {variant}: an unaligned feed took {fmt_s(unaligned.seconds)} against "
                   f"{fmt_s(aligned.seconds)} aligned: {v.brief(fmt_s)}.", v)]


@rests_on("rss_bytes")
def _executor_leak(variant, *cases):
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in cases if c.case != LEAK_AGAIN]
    return [f"executor-leak, {variant}: {len(grew)} new sets of targets grew resident memory by {fmt_bytes(sum(grew))} "
            f"(RSS, one sample per set)."]


# lesson -> (headline, the cases it reads, in order; None: all of them)
HEADLINES = {
    "executor-cache": (_executor_cache, ("first", "repeat", "new fetches", "new fetches repeat")),
    "graph-growth": (_graph_growth, GROWTH_CASES),
    "saved-copies": (_saved_copies, None),
    "placeholder-default": (_placeholder_default, DEFAULT_CASES),
    "folding": (_folding, FOLDING_CASES),
    "feed-alignment": (_feed_alignment, ALIGNMENT_CASES),
    "executor-leak": (_executor_leak, None),
}


def answer(report):
    """At most six lines: a headline per lesson (its first variant's), then how many more the findings hold."""
    said, lessons = [], []
    for run in (r for r in report.rows if r.ok):
        if run.lesson in lessons or run.lesson not in HEADLINES:
            continue
        headline, names = HEADLINES[run.lesson]
        cases = [run.case(n) for n in names] if names else list(run.cases)
        if any(c is None for c in cases):
            continue
        told = headline(run.variant, *cases)
        if told:
            lessons.append(run.lesson)
            said.extend(told)
    shown = _fitting(said)
    if shown < len(said):
        said = said[:shown] + [f"And {join(lessons[shown:])}: in the findings below."]
    return said or ["No lesson produced a result."]


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
