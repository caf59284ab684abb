"""What a pitfalls run tells a reader, declared as data: lesson by lesson, each run's findings from its own cases; the
headline ones, one a lesson, open the page. All are said over one view of the report's runs, whose cases are kept
only where they hold the evidence a finding needs."""

from dataclasses import dataclass, replace

from tfgraphs.findings import execution, growth
from tfgraphs.findings import pitfalls_said as said
from tfgraphs.findings.cases import against
from tfgraphs.findings.evidence import Finding, has, said_by
from tfgraphs.findings.memory import data_bytes
from tfgraphs.findings.pitfalls_said import meta_limit
from tfgraphs.spec.pitfalls import (ALIGNMENT_CASES, CHECKPOINT, DEFAULT_CASES, FOLDING_CASES, FROZEN, GRAPH,
                                    GROWTH_CASES, META)

# Reached here by the page and the tests.
__all__ = ["DECLARED", "HEADLINES", "LESSON_OF", "answer", "meta_limit", "sentences", "told"]


@dataclass(frozen=True)
class View:
    """The report, each run's cases (those holding some evidence), and the whole report beside them."""

    report: object
    whole: object = None

    def having(self, names):
        """The view over the cases that hold every field in names, in every run."""
        runs = tuple(replace(r, cases=tuple(c for c in r.cases if has(c, names))) for r in self.report.rows)
        return replace(self, report=replace(self.report, rows=runs), whole=self.whole or self)

    @property
    def ok(self):
        return [r for r in self.report.rows if r.ok]

    @property
    def x(self):
        """Bytes of X in this run."""
        return data_bytes(self.report)

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


def _runs(v):
    """Each ok run, as (lesson, variant), in the order they ran."""
    return tuple((r.lesson, r.variant) for r in v.ok)


def _first(v, key, lesson, names):
    """True for the first run of the lesson whose cases named hold the evidence: the lesson's headline is its."""
    return key[0] == lesson and key == next((k for k in _runs(v) if k[0] == lesson and v.cases(k, names) is not None),
                                            None)


LESSON_OF = {}   # kind -> the lesson (its name in spec.pitfalls) whose runs it is said of


def taught(kind, lesson, needs, names, say, template, unless, headline=False):
    """A finding of one lesson, said of each of its runs whose cases named (every case, for None; none, for ()) hold
    needs, as say(view, run, *those cases); a headline only of the first such run."""
    LESSON_OF[kind] = lesson

    def when(v, key):
        return _first(v, key, lesson, names) if headline else key[0] == lesson and v.cases(key, names) is not None
    return Finding(kind, needs, when, lambda v, key: say(v, v.run(key), *v.cases(key, names)), headline, template,
                   unless, per=_runs)


def _executor_cache(v, run, first, repeat, new, new_repeat):
    # A new fetch list is a new executor (DirectSession keys them by the sorted names): only when the judge finds it
    # slower than its repeat does this run show what building one costs, and so what a first run's extra is made of.
    shows = against(new, new_repeat).larger
    return (said._built(run.variant, "the first run", first, repeat, shows)
            + said._built(run.variant, "a new fetch list ([relu, pool])", new, new_repeat, shows))


def _told_lessons(v):
    """The lessons the headlines name, in order."""
    return [LESSON_OF[s.kind] for s in said_by(HEADLINES, v.whole or v)]


SECONDS, SAVED = ("seconds",), ("holds_data", "bytes")
CACHE = ("first", "repeat", "new fetches", "new fetches repeat")
HEADLINES = (
    taught("pitfalls.executor_cache", "executor-cache", SECONDS, CACHE,
           lambda v, run, *cases: said._executor_cache(run.variant, *cases),
           "executor-cache, {variant}: first run {time} against its repeat {time}, new fetches {time} against theirs "
           "{time}: each {verdict} / ...: both differ (...).", "executor-cache's four first and repeat cases did not "
           "all run", True),
    taught("pitfalls.graph_growth", "graph-growth", ("nodes", "step_s"), GROWTH_CASES,
           lambda v, run, *cases: said._graph_growth(run.variant, *cases),
           "graph-growth, {variant}: +{n} nodes a step ({n} -> {n}), a step {time}; {time} with the op made once: "
           "{verdict}. / ...; the op made once was folded to a constant (partition graphs), so there is no baseline.",
           "graph-growth did not run, or its loops counted no nodes", True),
    taught("pitfalls.saved_copies", "saved-copies", SAVED, None,
           lambda v, run, *cases: said._saved_copies(run.variant, *cases),
           "saved-copies, {variant}: X is, byte for byte, in {artifacts} ({n} of {n} files).",
           "saved-copies did not run, or an artifact was not searched for X", True),
    taught("pitfalls.placeholder_default", "placeholder-default", ("graph_bytes", "const_bytes"), DEFAULT_CASES,
           lambda v, run, *cases: said._placeholder_default(run.variant, *cases),
           "placeholder-default: {bytes} Const bytes in the graph, against {bytes} for a plain placeholder.",
           "placeholder-default did not run", True),
    taught("pitfalls.folding", "folding", ("computes",), FOLDING_CASES,
           lambda v, run, *cases: said._folding(run.variant, *cases),
           "folding: the network was folded in {cases} (of {n}; partition graphs).",
           "folding did not run, or the graphs that ran were not read", True),
    taught("pitfalls.feed_alignment", "feed-alignment", ("seconds", "runs_s"), ALIGNMENT_CASES,
           lambda v, run, *cases: said._feed_alignment(run.variant, *cases),
           "feed-alignment, {variant}: an unaligned feed took {time} against {time} aligned: {verdict}.",
           "feed-alignment did not run", True),
    taught("pitfalls.executor_leak", "executor-leak", ("rss_bytes",), None,
           lambda v, run, *cases: said._executor_leak(run.variant, *cases),
           "executor-leak, {variant}: {n} new sets of targets grew resident memory by {bytes} (RSS, one sample per "
           "set).", "executor-leak did not run, or a set's resident memory was not measured", True),
)
CLOSING = (
    Finding("pitfalls.more", (), lambda v: said._fitting(said_by(HEADLINES, v)) < len(said_by(HEADLINES, v)),
            lambda v: said._more(_told_lessons(v)[said._fitting(said_by(HEADLINES, v)):]), True,
            "And {lessons}: in the findings below.",
            "every lesson's headline fits the answer (four lessons, five lines at most)"),
    Finding("pitfalls.no_result", (), lambda v: not said_by(HEADLINES, v.whole or v),
            lambda v: ["No lesson produced a result."], True, "No lesson produced a result.",
            "any lesson has a headline"),
)

REORDERED = ("reordered fetches", "new fetches repeat", "new fetches")
CALLABLE, REAL = ("make_callable", "callable first call", "callable repeat"), (
    "real callable made", "real callable first call", "real callable repeat")
META_PROBE = ("bytes", "probe_batch", "probe_bytes")
# The findings said before they were declared keep the kinds saved documents already hold (module._function).
TAUGHT = (
    taught("pitfalls._built", "executor-cache", SECONDS, CACHE, _executor_cache,
           "{variant}: the first run / a new fetch list ([relu, pool]) took {time} against {time} for its repeat: "
           "{verdict}: a set of fetches the session had not run, for which DirectSession builds an executor ... / "
           "...; a new fetch list ... was not found slower than its repeat, so this run does not show the extra to "
           "be the executor.", "executor-cache's four first and repeat cases did not all run"),
    taught("pitfalls._reordered", "executor-cache", SECONDS, REORDERED,
           lambda v, run, reordered, repeat, new: said._reordered(run.variant, reordered, repeat, new,
                                                                  against(new, repeat).larger),
           "{variant}: the same fetches reordered ([pool, relu]) took {time} against {time} for that list's repeat: "
           "{verdict}: the order of the fetches does not make a new executor. / ...; the new fetch list itself took "
           "{time}.", "the reordered fetches, or the new fetch list and its repeats, did not run"),
    taught("pitfalls._new_feeds", "executor-cache", SECONDS, ("new feeds",),
           lambda v, run, case: said._new_feeds(run.variant, case),
           "{variant}: feeding an intermediate tensor (pool) made a new feed set; that run took {time} with only relu "
           "left to compute.", "the new feeds case did not run"),
    taught("pitfalls._callable", "executor-cache", SECONDS, CALLABLE,
           lambda v, run, *cases: said._callable(run.variant, *cases),
           "{variant}: make_callable(conv, feed_list=[...]) returned in {time}; its first call took {time} against "
           "{time} for its repeat: {verdict}: ... so the executor was built at the first call.",
           "make_callable's cases did not run"),
    taught("pitfalls._real_callable", "executor-cache", SECONDS, REAL,
           lambda v, run, *cases: said._real_callable(run.variant, *cases),
           "{variant}: a callable made by Session._make_callable_from_options(CallableOptions) took {time} to make "
           "and {time} at its first call, against {time} a repeat: its first call against a repeat: {verdict}; ...",
           "the TensorFlow version made no callable from CallableOptions"),
    taught("growth._growth", "graph-growth", ("nodes",), GROWTH_CASES,
           lambda v, run, *cases: growth._growth(run.variant, *cases),
           "{variant}: the graph grew by {n} nodes on every step that created an op ({n} -> {n} over {n} steps); with "
           "the op created once it stayed at {n} nodes. / ... did not grow on every leaky step ...",
           "graph-growth's loops counted no nodes"),
    taught("growth._step_cost", "graph-growth", ("step_s",), GROWTH_CASES,
           lambda v, run, *cases: growth._step_cost(run.variant, *cases),
           "{variant}: after the first step, a step that created an op took {time} against {time} for a step that "
           "reused its op ..., slower on {n} of {n} steps: {verdict}: every new op is a new fetch ... / ... folded "
           "into a constant ..., so its {time} steps compute nothing and are no baseline ...",
           "graph-growth's steps were not timed"),
    taught("growth._extend", "graph-growth", ("extend_s",), GROWTH_CASES,
           lambda v, run, *cases: growth._extend(run.variant, *cases),
           "{variant}: after the first step, Session._extend_graph() alone, timed before each run, took a median "
           "{time} on a step with a new op against {time} when no op was new: {verdict}.",
           "the session's Extend was not timed apart (a TensorFlow without Session._extend_graph)"),
    taught("growth._growth_rss", "graph-growth", ("rss_bytes",), GROWTH_CASES,
           lambda v, run, *cases: growth._growth_rss(run.variant, *cases),
           "{variant}: resident memory changed by {bytes} over the leaky loop and by {bytes} over the other.",
           "graph-growth's resident memory was not measured"),
    taught("pitfalls.finalized", "graph-growth", (), (),
           lambda v, run: said._finalized(run.variant, run.finalize_error),
           "{variant}: `graph.finalize()` turned the leaky step into an immediate error: \"{error}\" / {variant}: "
           "after `graph.finalize()` the leaky step still created its op without error.", "graph-growth did not run"),
    taught("pitfalls._held", "saved-copies", SAVED, (), lambda v, run: said._held(run.variant, v.x, list(run.cases)),
           "{variant}: X ({bytes}) was found, byte for byte, in the {artifact} ({bytes} bytes), ... / {variant}: X was "
           "not in the {artifact} ({bytes} bytes), ...", "saved-copies did not run"),
    taught("pitfalls._frozen", "saved-copies", SAVED, (),
           lambda v, run: said._frozen(run.variant, run.case(FROZEN), run.case(GRAPH)),
           "{variant}: freezing (convert_variables_to_constants) turned the variable back into a Const: {bytes} -> "
           "{bytes} bytes.", "no frozen graph held X beside a graph that did not"),
    taught("pitfalls._checkpoint", "saved-copies", SAVED, (),
           lambda v, run: said._checkpoint(run.variant, v.x, run.case(CHECKPOINT)),
           "{variant}: the checkpoint holds the variable's value, X itself: {bytes} bytes for {bytes} bytes of X.",
           "no checkpoint held X (the variant has no variable)"),
    taught("pitfalls._meta", "saved-copies", META_PROBE, (),
           lambda v, run: said._meta(run.variant, run.case(META), v.report.config.batch),
           "{variant}: the .meta grew by {bytes} bytes per example (batch {n} against {n}), so exporting it would "
           "pass 2 GiB at batch {n}, ... / {variant}: the .meta did not grow with the data ...",
           "the .meta was not exported again at a second batch"),
    taught("pitfalls._default_stored", "placeholder-default", ("graph_bytes", "const_bytes"), DEFAULT_CASES[:2],
           lambda v, run, *cases: said._default_stored(v.x, *cases),
           "placeholder_with_default(X) stored its default as a Const: {bytes} graph bytes ({bytes} in Consts) "
           "against {bytes} for a plain placeholder, {ratio}x X's {bytes} bytes. ... / ... less than X's {bytes}: "
           "the default is not stored whole.", "placeholder-default did not run"),
    taught("pitfalls._default_ran", "placeholder-default", ("computes", "seconds"), DEFAULT_CASES,
           lambda v, run, *cases: said._default_ran(*cases),
           "Not fed, the default is a constant the classic folder may evaluate, and the network was {folded}; fed, "
           "{ran} (partition graphs). First runs, one sample each: {time} not fed, {time} fed, {time} for a plain "
           "placeholder. ...", "the graphs that ran were not read"),
    taught("execution._folded", "folding", ("computes",), (),
           lambda v, run: [s for case in run.cases for s in execution._folded(case)],
           "{case}: folded: the graph that ran holds no Conv2D ... / not folded: Conv2D still ran, fed by {ops} ... / "
           "... behind {n} fed _Arg nodes ... / ... and folding made no Const (partition graphs).",
           "folding did not run"),
    taught("execution._what_decides", "folding", ("computes", "fetched_bytes"), FOLDING_CASES[:2],
           lambda v, run, *cases: execution._what_decides(*cases),
           "The same network folded when it fetched its sum ({bytes} bytes) and not when it fetched the whole output "
           "({bytes} bytes): what decides is the size of the tensor that leaves the folded subgraph ...",
           "the whole output folded too, or the scalar fetch did not"),
    taught("execution._raised_limit", "folding", ("computes",), (FOLDING_CASES[0], FOLDING_CASES[2]),
           lambda v, run, *cases: execution._raised_limit(*cases),
           "With OptimizerOptions.max_folded_constant_in_bytes = {bytes} the classic folder replaced the whole "
           "output, which it did not under its default limit. ...",
           "the whole output folded under the default limit, or not under the raised one"),
    taught("execution._pruned", "pruning", ("kernels", "counter_after"), (),
           lambda v, run: [s for case in run.cases for s in execution._pruned(run.variant, case)],
           "{variant}: {case} ran {ops} and {kernel}: the counter read {n} after it (step stats); sess.run returned "
           "None. / ... and no assign_add: the counter still read {n} ...", "pruning did not run"),
    taught("execution._alignment", "feed-alignment", ("seconds", "runs_s", "address_mod_64"), ALIGNMENT_CASES,
           lambda v, run, *cases: execution._alignment(run.variant, *cases),
           "{variant}: feeding X from data {n} bytes past a 64-byte boundary took {time} a run (median of {n}) "
           "against {time} from a 64-byte-aligned copy, ...: {verdict}. The unaligned feed added {time} a run ...",
           "feed-alignment did not run"),
    taught("execution._leaked", "executor-leak", ("rss_bytes", "seconds"), (),
           lambda v, run: execution._leaked(run.variant, v.x, list(run.cases)),
           "{variant}: {n} new sets of targets in one session grew resident memory by {bytes} in all, {bytes} median "
           "per new set ({ratio}x X's {bytes}); RSS, one sample per set. / {variant}: {case} run again at the end "
           "took {time} against {time} the first time ...", "executor-leak did not run"),
)


def _growth_runs(v):
    """graph-growth's ok runs that hold their leaky loop."""
    return [r for r in v.ok if r.lesson == "graph-growth" and r.case(GROWTH_CASES[0]) is not None]


ACROSS = (
    Finding("growth._extend_between", ("extend_s", "graph_bytes"), lambda v: len(_growth_runs(v)) == 2,
            lambda v: growth.extend_by_variant(_growth_runs(v)), False,
            "A leaky step's Extend took {time} in {variant}, a graph of {bytes} bytes, against {time} in {variant}, "
            "{bytes} bytes, one worker each: {verdict}; the steps are these two workers', ...",
            "graph-growth did not run on two variants, or their Extends were not timed"),
)
NOTHING = Finding("pitfalls.nothing", (), lambda v: not said_by(TAUGHT + ACROSS, v.whole or v),
                  lambda v: ["No lesson produced a result, so there is nothing to explain."], False,
                  "No lesson produced a result, so there is nothing to explain.", "some lesson has a finding")
FINDINGS = TAUGHT + ACROSS + (NOTHING,)
DECLARED = HEADLINES + CLOSING + FINDINGS


def told(report):
    """(the answer, the findings): every declaration said over one view of the report, split by headline; the answer
    keeps the headlines that fit, then names the lessons left to the findings."""
    view = View(report)
    heads = said_by(HEADLINES, view)
    return heads[:said._fitting(heads)] + said_by(CLOSING, view), said_by(FINDINGS, view)


def answer(report):
    """At most six lines: a headline per lesson (its first variant's), then how many more the findings hold."""
    return told(report)[0]


def sentences(report):
    """Sentences that hold for this report's numbers, lesson by lesson."""
    return told(report)[1]
