"""What a pitfalls run tells a reader, lesson by lesson: each run's findings from its own cases; the headline ones,
one a lesson, open the page. All are said over one view of the results' runs, whose cases are kept only where they
hold the evidence a finding needs; the longer sentences are written in findings.cases."""

import functools
import statistics
from dataclasses import dataclass, replace

from tfgraphs.findings import cases as text
from tfgraphs.findings.cases import against, paired_runs, runs_of, short_s, signed_bytes
from tfgraphs.findings.evidence import FINDINGS, families_of, finding, has, judged, sentences_of
from tfgraphs.findings.compare import data_bytes
from tfgraphs.records.judge import adjusted, judge
from tfgraphs.spec.network import GRAPHDEF_LIMIT
from tfgraphs.spec.pitfalls import (ALIGNMENT_CASES, CHECKPOINT, DEFAULT_CASES, FOLDING_CASES, FROZEN, GRAPH,
                                    GROWTH_CASES, LEAK_AGAIN, META, PRUNING_CASES)
from tfgraphs.units import fmt_bytes, fmt_s, join


@dataclass(frozen=True)
class View:
    """The results, each run's cases (those holding some evidence), and the whole results' view beside them."""

    results: object
    whole: object = None

    def with_evidence(self, names):
        """The view over the cases that hold every field in names, in every run."""
        runs = tuple(replace(r, cases=tuple(c for c in r.cases if has(c, names))) for r in self.results.rows)
        return replace(self, results=replace(self.results, rows=runs), whole=self.whole or self)

    @property
    def ok(self):
        return [r for r in self.results.rows if r.ok]

    @property
    def x(self):
        """Bytes of X in this run."""
        return data_bytes(self.results)

    def run(self, key):
        """The ok run of (lesson, variant), or None."""
        return next((r for r in self.ok if (r.lesson, r.variant) == key), None)

    def cases(self, key, names):
        """The run's cases called names, or every case for None; None when one is missing or lacks the evidence."""
        run = self.run(key)
        if run is None:
            return None
        if names is None:
            return run.cases if len(run.cases) == len((self.whole or self).run(key).cases) else None
        found = tuple(run.case(n) for n in names)
        return None if any(c is None for c in found) else found


def each_run(view):
    """Each ok run, as (lesson, variant), in the order they ran."""
    return tuple((r.lesson, r.variant) for r in view.ok)


def first_of(view, key, lesson, names):
    """True for the first run of the lesson whose cases named hold the evidence: the lesson's headline is its."""
    return key[0] == lesson and key == next(
        (k for k in each_run(view) if k[0] == lesson and view.cases(k, names) is not None), None)


def of_lesson(lesson, names=None, first=False):
    """A finding said of each run of lesson whose cases named (every case for None, none for ()) hold its evidence,
    as say(view, run, *those cases); with first, only of the lesson's first such run (its headline)."""
    def wrap(say):
        @functools.wraps(say)
        def of_run(view, key):
            found = view.cases(key, names) if key[0] == lesson else None
            if found is None or (first and not first_of(view, key, lesson, names)):
                return []
            return say(view, view.run(key), *found)
        of_run.lesson = lesson
        return of_run
    return wrap


SECONDS, SAVED = ("seconds",), ("holds_data", "bytes")
CACHE = ("first", "repeat", "new fetches", "new fetches repeat")

# The answer: a headline per lesson, of its first run.


@finding("pitfalls.executor_cache", SECONDS, headline=True, per=each_run,
         template="executor-cache, {variant}: first run {time} against its repeat {time}, new fetches {time} against "
         "theirs {time}: each {verdict} / ...: both differ (...).",
         unless="executor-cache's four first and repeat cases did not all run")
@of_lesson("executor-cache", CACHE, first=True)
def executor_cache(view, run, first, repeat, new, new_repeat):
    """executor-cache's first run and new fetches, each against its repeats."""
    return text.executor_cache_headline(run.variant, first, repeat, new, new_repeat)


@finding("pitfalls.graph_growth", ("nodes", "step_s"), headline=True, per=each_run,
         template="graph-growth, {variant}: +{n} nodes a step ({n} -> {n}), a step {time} median; {time} with the op "
         "made once: {verdict}. / ...; the op made once was folded to a constant (partition graphs), so there is no "
         "baseline.", unless="graph-growth did not run, or its loops counted no nodes")
@of_lesson("graph-growth", GROWTH_CASES, first=True)
def graph_growth(view, run, leak, once):
    """graph-growth's nodes a step, and its leaky steps against the op made once."""
    grew = sorted({b - a for a, b in zip(leak.nodes, leak.nodes[1:])})
    per = f"{grew[0]}" if len(grew) == 1 else f"{grew[0]}-{grew[-1]}"
    grown = (f"graph-growth, {run.variant}: +{per} nodes a step ({leak.nodes[0]} -> {leak.nodes[-1]}), a step "
             f"{short_s(statistics.median(leak.step_s[1:]))} median")
    if once.computes is not None and not once.computes["Conv2D"]:
        # Folded, the fixed loop computes nothing: no baseline to set the leaky step against, so no contrast either.
        return [grown + "; the op made once was folded to a constant (partition graphs), so there is no baseline."]
    head = f"{grown}; {short_s(statistics.median(once.step_s[1:]))} with the op made once"
    v = judge(leak.step_s[1:], once.step_s[1:], paired=True)
    return [judged(f"{head}: {v.brief(fmt_s)}.", v)]


@finding("pitfalls.saved_copies", SAVED, headline=True, per=each_run,
         template="saved-copies, {variant}: X is, byte for byte, in {artifacts} ({n} of {n} files).",
         unless="saved-copies did not run, or an artifact was not searched for X")
@of_lesson("saved-copies", first=True)
def saved_copies(view, run, *cases):
    """The artifacts that hold X byte for byte."""
    held = [c.case for c in cases if c.holds_data]
    found = join(held) if held else "none"
    return [f"saved-copies, {run.variant}: X is, byte for byte, in {found} ({len(held)} of {len(cases)} files)."]


@finding("pitfalls.placeholder_default", ("graph_bytes", "const_bytes"), headline=True, per=each_run,
         template="placeholder-default: {bytes} Const bytes in the graph, against {bytes} for a plain placeholder.",
         unless="placeholder-default did not run")
@of_lesson("placeholder-default", DEFAULT_CASES, first=True)
def placeholder_default(view, run, plain, not_fed, fed):
    """The Const bytes a placeholder_with_default adds to the graph."""
    return [f"placeholder-default: {not_fed.const_bytes:,} Const bytes in the graph, against "
            f"{plain.const_bytes:,} for a plain placeholder."]


@finding("pitfalls.folding", ("computes",), headline=True, per=each_run,
         template="folding: the network was folded in {cases} (of {n}; partition graphs).",
         unless="folding did not run, or the graphs that ran were not read")
@of_lesson("folding", FOLDING_CASES, first=True)
def folding(view, run, *cases):
    """The folding cases whose network was folded."""
    folded = [c.case for c in cases if not c.computes["Conv2D"]]
    return [f"folding: the network was folded in {join(folded) if folded else 'no case'} (of {len(cases)}; "
            f"partition graphs)."]


@finding("pitfalls.pruning", ("kernels",), headline=True, per=each_run,
         template="pruning, {variant}: the assign_add outside relu's fan-in ran in {case} only (of {n}; step stats).",
         unless="pruning did not run")
@of_lesson("pruning", PRUNING_CASES, first=True)
def pruning(view, run, *cases):
    """The runs in which the op outside the fetches' fan-in ran."""
    ran = [c.case for c in cases if any(k.startswith("AssignAdd") for k in c.kernels)]
    return [f"pruning, {run.variant}: the assign_add outside relu's fan-in ran in {join(ran) or 'no run'} only "
            f"(of {len(cases)}; step stats)."]


@finding("pitfalls.feed_alignment", ("seconds", "runs_s"), headline=True, per=each_run,
         template="feed-alignment, {variant}: an unaligned feed took {time} a run against {time} aligned (medians): "
                  "{verdict}.",
         unless="feed-alignment did not run")
@of_lesson("feed-alignment", ALIGNMENT_CASES, first=True)
def feed_alignment(view, run, aligned, unaligned):
    """An unaligned feed's runs against an aligned one's."""
    v = judge(runs_of(unaligned), runs_of(aligned), paired=paired_runs(unaligned, aligned))
    return [judged(f"feed-alignment, {run.variant}: an unaligned feed took {fmt_s(unaligned.seconds)} a run against "
                   f"{fmt_s(aligned.seconds)} aligned (medians): {v.brief(fmt_s)}.", v)]


@finding("pitfalls.executor_leak", ("rss_bytes",), headline=True, per=each_run,
         template="executor-leak, {variant}: {n} new sets of targets grew resident memory by {bytes} (RSS, one sample "
         "per set).", unless="executor-leak did not run, or a set's resident memory was not measured")
@of_lesson("executor-leak", first=True)
def executor_leak(view, run, *cases):
    """How much resident memory the new sets of targets added."""
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in cases if c.case != LEAK_AGAIN]
    return [f"executor-leak, {run.variant}: {len(grew)} new sets of targets grew resident memory by "
            f"{fmt_bytes(sum(grew))} (RSS, one sample per set)."]


@finding("pitfalls.more", headline=True, template="And {lessons}: in the findings below.",
         unless="every lesson's headline fits the answer (four lessons, five lines at most)")
def more(view):
    """The lessons whose headlines do not fit the answer, named."""
    heads = text.strongest_first(sentences_of(HEADLINES, view))
    shown = text.fitting(heads)
    if shown >= len(heads):
        return []
    told = {LESSON_OF[s.kind] for s in heads[:shown]}
    lessons = dict.fromkeys(r.lesson for r in (view.whole or view).ok if r.lesson not in told)   # as they ran
    return [f"And {join(lessons)}: in the findings below."]


@finding("pitfalls.no_result", headline=True, template="No lesson produced a result.",
         unless="any lesson has a headline")
def no_result(view):
    """No lesson has a headline."""
    return [] if sentences_of(HEADLINES, view.whole or view) else ["No lesson produced a result."]


# The findings: every run's, lesson by lesson, then across runs.

REORDERED = ("reordered fetches", "new fetches repeat", "new fetches")
CALLABLE, REAL = ("make_callable", "callable first call", "callable repeat"), (
    "real callable made", "real callable first call", "real callable repeat")
META_PROBE = ("bytes", "probe_batch", "probe_bytes")


@finding("pitfalls._built", SECONDS, per=each_run,
         template="{variant}: the first run / a new fetch list ([relu, pool]) took {time} against {time} for its "
         "repeat: {verdict}: a set of fetches the session had not run, for which DirectSession builds an executor ... "
         "/ ...; a new fetch list ... was not found slower than its repeat, so this run does not show the extra to be "
         "the executor.", unless="executor-cache's four first and repeat cases did not all run")
@of_lesson("executor-cache", CACHE)
def built(view, run, first, repeat, new, new_repeat):
    """The first run and a new fetch list, each against its repeat: what building an executor costs."""
    # A new fetch list is a new executor (DirectSession keys them by the sorted names): only when the judge finds it
    # slower than its repeat does this run show what building one costs, and so what a first run's extra is made of.
    shows = against(new, new_repeat).larger
    return (text.built(run.variant, "the first run", first, repeat, shows)
            + text.built(run.variant, "a new fetch list ([relu, pool])", new, new_repeat, shows))


@finding("pitfalls._reordered", SECONDS, per=each_run,
         template="{variant}: the same fetches reordered ([pool, relu]) took {time} against {time} for that list's "
         "repeat: {verdict}. / ...; the new fetch list itself took {time}.",
         unless="the reordered fetches, or the new fetch list and its repeats, did not run")
@of_lesson("executor-cache", REORDERED)
def reordered(view, run, reordered, repeat, new):
    """The same fetches in another order, against the repeat of that list; what the new list took beside it."""
    line, v = text.set_against("the same fetches reordered ([pool, relu])", reordered, repeat, "that list's repeat")
    # One reordered run is one sample, which never shows no difference: that the order makes no new executor is
    # not said.
    if v.larger:
        return [judged(f"{run.variant}: {line}; the new fetch list itself took {fmt_s(new.seconds)}.", v)]
    return [judged(f"{run.variant}: {line}.", v)]


@finding("pitfalls._new_feeds", SECONDS, per=each_run,
         template="{variant}: feeding an intermediate tensor (pool) made a new feed set; that run took {time} with "
         "only relu left to compute.", unless="the new feeds case did not run")
@of_lesson("executor-cache", ("new feeds",))
def new_feeds(view, run, case):
    """Feeding an intermediate tensor: a new feed set, and what its run took."""
    return [f"{run.variant}: feeding an intermediate tensor (pool) made a new feed set; that run took "
            f"{fmt_s(case.seconds)} with only relu left to compute."]


@finding("pitfalls._callable", SECONDS, per=each_run,
         template="{variant}: make_callable(conv, feed_list=[...]) returned in {time}; its first call took {time} "
         "against {time} for its repeat: {verdict}: ... so the executor was built at the first call.",
         unless="make_callable's cases did not run")
@of_lesson("executor-cache", CALLABLE)
def wrapped_callable(view, run, made, first, repeat):
    """make_callable with a feed_list: when it built its executor."""
    line, v = text.set_against("its first call", first, repeat, "its repeat")
    # client/session.py: make_callable returns a function that calls _call_tf_sessionrun, as sess.run does.
    wrapped = f"{run.variant}: make_callable(conv, feed_list=[...]) returned in {short_s(made.seconds)}; {line}"
    if v.larger:
        return [judged(wrapped + ": make_callable returns a function that runs the session as sess.run does "
                       "(client/session.py), so the executor was built at the first call.", v)]
    return [judged(wrapped + ".", v)]


@finding("pitfalls._real_callable", SECONDS, per=each_run,
         template="{variant}: a callable made by Session._make_callable_from_options(CallableOptions) took {time} to "
         "make and {time} at its first call, against {time} a repeat; its first call against a repeat: {verdict}.",
         unless="the TensorFlow version made no callable from CallableOptions")
@of_lesson("executor-cache", REAL)
def real_callable(view, run, real, real_first, real_repeat):
    """A callable made from CallableOptions: what making it took, and its first call against its repeats."""
    return text.real_callable(run.variant, real, real_first, real_repeat)


@finding("growth._growth", ("nodes",), per=each_run, command="pitfalls",
         template="{variant}: the graph grew by {n} nodes on every step that created an op ({n} -> {n} over {n} "
         "steps); with the op created once it stayed at {n} nodes. / ... did not grow on every leaky step ...",
         unless="graph-growth's loops counted no nodes")
@of_lesson("graph-growth", GROWTH_CASES)
def growth(view, run, leak, once):
    """The nodes the leaky loop added on each step, against the loop that made its op once."""
    grew = [b - a for a, b in zip(leak.nodes, leak.nodes[1:])]
    if not grew or min(grew) <= 0:
        return [f"{run.variant}: the graph did not grow on every leaky step (nodes {leak.nodes[0]} -> "
                f"{leak.nodes[-1]})."]
    per = f"{grew[0]}" if len(set(grew)) == 1 else f"{min(grew)} to {max(grew)}"
    return [f"{run.variant}: the graph grew by {per} nodes on every step that created an op "
            f"({leak.nodes[0]} -> {leak.nodes[-1]} over {len(leak.nodes)} steps); with the op created once "
            f"it {'stayed at' if len(set(once.nodes)) == 1 else 'went'} "
            f"{' -> '.join(str(n) for n in dict.fromkeys(once.nodes))} nodes."]


@finding("growth._step_cost", ("step_s",), per=each_run, command="pitfalls",
         template="{variant}: after the first step, a step that created an op took {time} median ({time} to {time} "
         "over {n} steps) against {time} median for a step that reused its op ..., slower on {n} of {n} steps: {verdict}: every new op is a new fetch ... / ... folded "
         "into a constant ..., so its {time} steps compute nothing and are no baseline ...",
         unless="graph-growth's steps were not timed")
@of_lesson("graph-growth", GROWTH_CASES)
def step_cost(view, run, leak, once):
    """The leaky loop's steps after the first against the fixed loop's, step by step (pairs: the loops take turns),
    when the fixed loop's op computes the network (its partition graphs say so)."""
    return text.step_cost(run.variant, leak, once)


@finding("growth._extend", ("extend_s",), per=each_run, command="pitfalls",
         template="{variant}: after the first step, Session._extend_graph() alone, timed before each run, took a "
         "median {time} on a step with a new op against {time} when no op was new: {verdict}.",
         unless="the session's Extend was not timed apart (a TensorFlow without Session._extend_graph)")
@of_lesson("graph-growth", GROWTH_CASES)
def extend(view, run, leak, once):
    """The session's Extend, timed alone before each run: a leaky step's against the fixed loop's, step by step (the
    two loops take turns, so step i of each is a pair)."""
    new, none = leak.extend_s[1:], once.extend_s[1:]
    if not new or not none:
        return []
    v = judge(new, none, paired=True)
    why = (" Among the whole-graph work of an Extend, graph_execution_state.cc copies every NodeDef of the graph so "
           "far into a new GraphDef." if v.larger else "")
    return [judged(f"{run.variant}: after the first step, Session._extend_graph() alone, timed before each run, took "
                   f"a median {short_s(statistics.median(new))} on a step with a new op against "
                   f"{short_s(statistics.median(none))} when no op was new: {v.says(fmt_s)}.{why}", v)]


@finding("growth._growth_rss", ("rss_bytes",), per=each_run, command="pitfalls",
         template="{variant}: resident memory changed by {bytes} over the leaky loop and by {bytes} over the other.",
         unless="graph-growth's resident memory was not measured")
@of_lesson("graph-growth", GROWTH_CASES)
def growth_rss(view, run, leak, once):
    """How resident memory changed over each loop."""
    return [f"{run.variant}: resident memory changed by {signed_bytes(leak.rss_bytes)} over the leaky loop and "
            f"by {signed_bytes(once.rss_bytes)} over the other."]


@finding("pitfalls.finalized", per=each_run,
         template="{variant}: `graph.finalize()` turned the leaky step into an immediate error: \"{error}\" / "
         "{variant}: after `graph.finalize()` the leaky step still created its op without error.",
         unless="graph-growth did not run")
@of_lesson("graph-growth", ())
def finalized(view, run):
    """What graph.finalize() made of the leaky step: an error, or none."""
    if run.finalize_error:
        return [f"{run.variant}: `graph.finalize()` turned the leaky step into an immediate error: "
                f"\"{run.finalize_error}\""]
    return [f"{run.variant}: after `graph.finalize()` the leaky step still created its op without error."]


@finding("pitfalls._held", SAVED, per=each_run,
         template="{variant}: X ({bytes}) was found, byte for byte, in the {artifact} ({bytes} bytes), ... / "
         "{variant}: X was not in the {artifact} ({bytes} bytes), ...", unless="saved-copies did not run")
@of_lesson("saved-copies", ())
def held(view, run):
    """The artifacts that hold X, and those that do not."""
    found, free, sentences = ([c for c in run.cases if c.holds_data], [c for c in run.cases if not c.holds_data],
                              [])
    if found:
        sentences.append(f"{run.variant}: X ({fmt_bytes(view.x)}) was found, byte for byte, in the "
                         + join(f"{c.case} ({c.bytes:,} bytes)" for c in found) + ".")
    if free:
        sentences.append(f"{run.variant}: X was not in the " + join(f"{c.case} ({c.bytes:,} bytes)" for c in free)
                         + ".")
    return sentences


@finding("pitfalls._frozen", SAVED, per=each_run,
         template="{variant}: freezing (convert_variables_to_constants) turned the variable back into a Const: "
         "{bytes} -> {bytes} bytes.", unless="no frozen graph held X beside a graph that did not")
@of_lesson("saved-copies", ())
def frozen(view, run):
    """Freezing turned the variable back into a Const."""
    frozen, graph = run.case(FROZEN), run.case(GRAPH)
    if not (frozen and frozen.holds_data and graph and not graph.holds_data):
        return []
    return [f"{run.variant}: freezing (convert_variables_to_constants) turned the variable back into a "
            f"Const: {graph.bytes:,} -> {frozen.bytes:,} bytes."]


@finding("pitfalls._checkpoint", SAVED, per=each_run,
         template="{variant}: the checkpoint holds the variable's value, X itself: {bytes} bytes for {bytes} bytes of "
         "X.", unless="no checkpoint held X (the variant has no variable)")
@of_lesson("saved-copies", ())
def checkpoint(view, run):
    """The checkpoint holds X itself."""
    saved = run.case(CHECKPOINT)
    if not (saved and saved.holds_data):
        return []
    return [f"{run.variant}: the checkpoint holds the variable's value, X itself: {saved.bytes:,} bytes "
            f"for {view.x:,} bytes of X."]


def meta_limit(case, batch, x_bytes):
    """(whole bytes per example, bytes the exports differ by beyond them, (earliest, latest) first batch whose .meta
    passes 2 GiB or None) from the two exports of a .meta case, X holding x_bytes at this batch."""
    if case.probe_batch is None or batch == case.probe_batch:
        return None, 0, None
    grown, more = case.bytes - case.probe_bytes, batch - case.probe_batch
    if grown < more:   # under a byte per example: the batch written in its shapes, not data
        return grown / more, 0, None
    # Whole bytes per example, and what is left over: a slope through two exports would count those few bytes (a
    # length prefix that took a byte more as X's bytes passed a power of 128) again for every example.
    per_example, left = divmod(grown, more)
    overhead = case.bytes - per_example * batch
    # Past this batch, X's bytes may pass more powers of 128 before 2 GiB, each widening the prefixes by as much.
    again = left * sum(x_bytes < 128 ** p < GRAPHDEF_LIMIT for p in range(1, 5))
    return per_example, left, ((GRAPHDEF_LIMIT - 1 - overhead - again) // per_example + 1,
                               (GRAPHDEF_LIMIT - 1 - overhead) // per_example + 1)


@finding("pitfalls._meta", META_PROBE, per=each_run,
         template="{variant}: the .meta grew by {bytes} bytes from batch {n} to {n}: {bytes} bytes per example and {n} "
         "bytes besides; on a line of {bytes} bytes per example through this export, the .meta passes 2 GiB at "
         "batch {n}, ..., where X alone is {bytes} bytes / ... the .meta stays under 2 GiB up to batch {n}, ..., as far as "
         "X alone stays under 2 GiB ... / {variant}: the .meta did not grow with the data ...",
         unless="the .meta was not exported again at a second batch")
@of_lesson("saved-copies", ())
def meta(view, run):
    """How the .meta grows with the batch, and the batch at which it would pass 2 GiB."""
    case, batch = run.case(META), view.results.config.batch
    per_example, left, over = meta_limit(case, batch, view.x) if case else (None, 0, None)
    if over is not None:
        earliest, latest = over
        besides = f" and {left:,} byte{'s' if left != 1 else ''} besides" if left else ""
        grew = (f"{run.variant}: the .meta grew by {case.bytes - case.probe_bytes:,} bytes from batch "
                f"{case.probe_batch} to {batch:,}: {per_example:,} bytes per example{besides}; on a line of "
                f"{per_example:,} bytes per example through this export, ")
        if earliest * view.x // batch >= 2**31:   # X alone is 2 GiB there: no graph holding it is made
            return [grew + f"the .meta stays under 2 GiB up to batch {earliest - 1:,}, "
                           f"{(earliest - 1) / batch:,.1f}x this run's batch, as far as X alone stays under 2 GiB "
                           f"({(earliest - 1) * view.x // batch:,} bytes there; predicted, not allocated)."]
        at = (f"at batch {latest:,}, {latest / batch:,.1f}x this run's batch" if earliest == latest else
              f"between batch {earliest:,} and {latest:,} (its length prefixes may widen again as X grows)")
        return [grew + f"the .meta passes 2 GiB {at}, where X alone is {latest * view.x // batch:,} bytes "
                       f"(predicted, not allocated)."]
    if per_example is not None:
        return [f"{run.variant}: the .meta did not grow with the data ({case.probe_bytes:,} bytes at batch "
                f"{case.probe_batch}, {case.bytes:,} at {batch:,}, under a byte per example): the batch does not "
                f"bring it near 2 GiB."]
    return []


@finding("pitfalls._default_stored", ("graph_bytes", "const_bytes"), per=each_run,
         template="placeholder_with_default(X) stored its default as a Const: {bytes} graph bytes ({bytes} in Consts) "
         "against {bytes} for a plain placeholder, {ratio}x X's {bytes} bytes. ... / ... less than X's {bytes}: the "
         "default is not stored whole.", unless="placeholder-default did not run")
@of_lesson("placeholder-default", DEFAULT_CASES[:2])
def default_stored(view, run, plain, not_fed):
    """placeholder_with_default(X) stores its default in the graph as a Const."""
    return text.default_stored(view.x, plain, not_fed)


@finding("pitfalls._default_ran", ("computes", "seconds"), per=each_run,
         template="Not fed, the default is a constant the classic folder may evaluate, and the network was {folded}; "
         "fed, {ran} (partition graphs). First runs, one sample each: {time} not fed, {time} fed, {time} for a plain "
         "placeholder. ...", unless="the graphs that ran were not read")
@of_lesson("placeholder-default", DEFAULT_CASES)
def default_ran(view, run, plain, not_fed, fed):
    """What ran with the default not fed and fed, and their first runs."""
    return text.default_ran(plain, not_fed, fed)


@finding("execution._folded", ("computes",), per=each_run, command="pitfalls",
         template="{case}: folded: the graph that ran holds no Conv2D ... / not folded: Conv2D still ran, fed by "
         "{ops} ... / ... behind {n} fed _Arg nodes ... / ... and folding made no Const (partition graphs).",
         unless="folding did not run")
@of_lesson("folding", ())
def folded(view, run):
    """Each folding case: whether its network was folded, and what kept it from folding."""
    return [text.folded(case) for case in run.cases]


@finding("execution._what_decides", ("computes", "fetched_bytes", "folder_log"), per=each_run, command="pitfalls",
         template="The same network folded when it fetched its sum ({bytes} bytes) and not when it fetched the whole "
         "output ({bytes} bytes): the classic folder logged the replacement, and what it checks is the size of the "
         "tensor it puts in the graph ...",
         unless="the whole output folded too, or the scalar fetch did not")
@of_lesson("folding", FOLDING_CASES[:2])
def what_decides(view, run, whole, scalar):
    """The fetched tensor's size decides folding: the sum folded where the whole output did not."""
    if not (whole.computes["Conv2D"] and not scalar.computes["Conv2D"]):
        return []
    # ReplaceTensorWithConstant (constant_folding.cc) refuses a tensor over its limit; Grappler's rules differ.
    classic = any("replaced" in s for s in scalar.folder_log or () if s["stage"] == "classic/constant_folding")
    why = ("the classic folder logged the replacement, and what it checks is the size of the tensor it puts in the "
           "graph, the one that leaves the folded subgraph, not the size of X or of the tensors inside it" if classic
           else "the size of the tensor that leaves the folded subgraph decided it here, not the size of X")
    return [f"The same network folded when it fetched its sum ({scalar.fetched_bytes} bytes) and not when "
            f"it fetched the whole output ({whole.fetched_bytes:,} bytes): {why}."]


@finding("execution._raised_limit", ("computes",), per=each_run, command="pitfalls",
         template="With OptimizerOptions.max_folded_constant_in_bytes = {bytes} the classic folder replaced the whole "
         "output, which it did not under its default limit. ...",
         unless="the whole output folded under the default limit, or not under the raised one")
@of_lesson("folding", (FOLDING_CASES[0], FOLDING_CASES[2]))
def raised_limit(view, run, whole, raised):
    """A raised folding limit let the classic folder replace the whole output."""
    return text.raised_limit(whole, raised)


@finding("execution._pruned", ("kernels", "counter_after"), per=each_run, command="pitfalls",
         template="{variant}: {case} ran {ops} and {kernel}: the counter read {n} after it (step stats); sess.run "
         "returned None. / ... and no assign_add: the counter still read {n} ...", unless="pruning did not run")
@of_lesson("pruning", ())
def pruned(view, run):
    """Each pruning case: the network's kernels it ran, and whether the counter's assign_add ran."""
    return [text.pruned(run.variant, case) for case in run.cases]


@finding("execution._alignment", ("seconds", "runs_s", "address_mod_64"), per=each_run, command="pitfalls",
         template="{variant}: feeding X from data {n} bytes past a 64-byte boundary took {time} a run (median of {n}) "
         "against {time} from a 64-byte-aligned copy, ...: {verdict}. The unaligned feed added {time} a run ...",
         unless="feed-alignment did not run")
@of_lesson("feed-alignment", ALIGNMENT_CASES)
def alignment(view, run, aligned, unaligned):
    """An unaligned feed's runs against an aligned copy's, beside a NumPy copy of X timed in the same worker."""
    return [text.alignment(run.variant, aligned, unaligned)]


@finding("execution._leaked", ("rss_bytes", "seconds"), per=each_run, command="pitfalls",
         template="{variant}: {n} new sets of targets in one session grew resident memory by {bytes} in all, {bytes} "
         "median per new set ({ratio}x X's {bytes}); RSS, one sample per set. / {variant}: {case} run again at the "
         "end took {time} against {time} the first time ...", unless="executor-leak did not run")
@of_lesson("executor-leak", ())
def leaked(view, run):
    """The resident memory new sets of targets kept, and a first set run again at the end."""
    return text.leaked(run.variant, view.x, list(run.cases))


def growth_runs(view):
    """graph-growth's ok runs that hold their leaky loop."""
    return [r for r in view.ok if r.lesson == "graph-growth" and r.case(GROWTH_CASES[0]) is not None]


@finding("growth._extend_between", ("extend_s", "graph_bytes"), command="pitfalls",
         template="A leaky step's Extend took {time} in {variant}, a graph of {bytes} bytes, against {time} in "
         "{variant}, {bytes} bytes, one worker each: {verdict}; the steps are these two workers', ...",
         unless="graph-growth did not run on two variants, or their Extends were not timed")
def extend_between(view):
    """A leaky step's Extend in each of two variants, one against the other (each variant in its own worker)."""
    runs = growth_runs(view)
    if len(runs) != 2:
        return []
    (a, leak_a), (b, leak_b) = ((r.variant, r.case(GROWTH_CASES[0])) for r in runs)
    return text.extend_between(a, leak_a, b, leak_b)


@finding("pitfalls.nothing", template="No lesson produced a result, so there is nothing to explain.",
         unless="some lesson has a finding")
def nothing(view):
    """No lesson has a finding."""
    others = [f for f in FINDINGS["pitfalls"] if not f.headline and f.kind != "pitfalls.nothing"]
    return [] if sentences_of(others, view.whole or view) else [
        "No lesson produced a result, so there is nothing to explain."]


LESSON_OF = {f.kind: f.say.lesson for f in FINDINGS["pitfalls"] if hasattr(f.say, "lesson")}   # kind -> its lesson
HEADLINES = tuple(f for f in FINDINGS["pitfalls"] if f.headline and f.kind in LESSON_OF)
CLOSING = tuple(f for f in FINDINGS["pitfalls"] if f.headline and f.kind not in LESSON_OF)


def answer_and_findings(results):
    """(the answer, the findings): the answer keeps the headlines that fit, those that found a difference first,
    then names the lessons left to the findings; the findings are every run's, lesson by lesson."""
    others = [f for f in FINDINGS["pitfalls"] if not f.headline]
    # Each lesson's findings are one family; the answer restates some of their comparisons, judged as there.
    with adjusted(*families_of(others, View(results), block=lambda s: LESSON_OF.get(s.kind))):
        heads, found = sentences_of(HEADLINES, View(results)), sentences_of(others, View(results))
        closing = sentences_of(CLOSING, View(results))   # the lessons left out, as the families judged the rest
    heads = text.strongest_first(heads)
    return heads[:text.fitting(heads)] + closing, found
