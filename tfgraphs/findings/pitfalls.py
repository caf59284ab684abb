"""Explain a pitfalls report from its own numbers: one group of sentences per lesson and variant."""

import math

from tfgraphs.findings import execution, growth
from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.cases import against, says, short_s, typical
from tfgraphs.spec import network
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
from tfgraphs.spec.pitfalls import CHECKPOINT, DEFAULT_CASES, FROZEN, GRAPH, META
from tfgraphs.units import fmt_bytes, fmt_s, join


def _set_against(what, case, base, base_name):
    """'{what} took 36.8 ms against 144 us for its repeat: <verdict>', and the verdict."""
    v = against(case, base)
    return f"{what} took {short_s(case.seconds)} against {short_s(typical(base))} for {base_name}: {says(v)}", v


def executor_cache(run):
    """Which runs paid for a new executor, for one variant."""
    c = {case.case: case for case in run.cases}
    # A new fetch list is a new executor (DirectSession keys them by the sorted names): only when the judge finds it
    # slower than its repeat does this run show what building one costs, and so what a first run's extra is made of.
    shows = against(c["new fetches"], c["new fetches repeat"]).larger
    said = []
    for name, base, what in (("first", "repeat", "the first run"),
                             ("new fetches", "new fetches repeat", "a new fetch list ([relu, pool])")):
        said += _built(run.variant, what, c[name], c[base], shows)
    said += _reordered(run.variant, c["reordered fetches"], c["new fetches repeat"], c["new fetches"], shows)
    said += _new_feeds(run.variant, c["new feeds"])
    said += _callable(run.variant, c["make_callable"], c["callable first call"], c["callable repeat"])
    if "real callable made" in c:
        said += _real_callable(run.variant, c["real callable made"], c["real callable first call"],
                               c["real callable repeat"])
    return said


@rests_on("seconds")
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


@rests_on("seconds")
def _new_feeds(variant, case):
    return [f"{variant}: feeding an intermediate tensor (pool) made a new feed set; that run took "
            f"{fmt_s(case.seconds)} with only relu left to compute."]


@rests_on("seconds")
def _reordered(variant, reordered, repeat, new, shows):
    """The same fetches in another order, against the repeat of that list; what the new list took beside it. "No new
    executor" needs a run where a new one shows in the times (shows)."""
    text, v = _set_against("the same fetches reordered ([pool, relu])", reordered, repeat, "that list's repeat")
    if v.same and shows:
        return [judged(f"{variant}: {text}: the order of the fetches does not make a new executor.", v)]
    if v.larger:
        return [judged(f"{variant}: {text}; the new fetch list itself took {fmt_s(new.seconds)}.", v)]
    return [judged(f"{variant}: {text}.", v)]


@rests_on("seconds")
def _callable(variant, made, first, repeat):
    """make_callable with a feed_list: when it built its executor."""
    text, v = _set_against("its first call", first, repeat, "its repeat")
    # client/session.py: make_callable returns a function that calls _call_tf_sessionrun, as sess.run does.
    wrapped = f"{variant}: make_callable(conv, feed_list=[...]) returned in {short_s(made.seconds)}; {text}"
    if v.larger:
        return [judged(wrapped + ": make_callable returns a function that runs the session as sess.run does "
                       "(client/session.py), so the executor was built at the first call.", v)]
    return [judged(wrapped + ".", v)]


@rests_on("seconds")
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


def data_bytes(report):
    """Bytes of X in this run."""
    return network.data_bytes(report.config.batch, report.config.dtype)


def saved_copies(run, report):
    """Which artifacts held X, and where the .meta would pass 2 GiB."""
    return (_held(run.variant, data_bytes(report), list(run.cases))
            + _frozen(run.variant, run.case(FROZEN), run.case(GRAPH))
            + _checkpoint(run.variant, data_bytes(report), run.case(CHECKPOINT))
            + _meta(run.variant, run.case(META), report.config.batch))


@rests_on("holds_data", "bytes")
def _held(variant, x, cases):
    held, free, said = [c for c in cases if c.holds_data], [c for c in cases if not c.holds_data], []
    if held:
        said.append(f"{variant}: X ({fmt_bytes(x)}) was found, byte for byte, in the "
                    + join(f"{c.case} ({c.bytes:,} bytes)" for c in held) + ".")
    if free:
        said.append(f"{variant}: X was not in the " + join(f"{c.case} ({c.bytes:,} bytes)" for c in free) + ".")
    return said


@rests_on("holds_data", "bytes")
def _frozen(variant, frozen, graph):
    if not (frozen and frozen.holds_data and graph and not graph.holds_data):
        return []
    return [f"{variant}: freezing (convert_variables_to_constants) turned the variable back into a "
            f"Const: {graph.bytes:,} -> {frozen.bytes:,} bytes."]


@rests_on("holds_data", "bytes")
def _checkpoint(variant, x, checkpoint):
    if not (checkpoint and checkpoint.holds_data):
        return []
    return [f"{variant}: the checkpoint holds the variable's value, X itself: {checkpoint.bytes:,} bytes "
            f"for {x:,} bytes of X."]


@rests_on("bytes", "probe_batch", "probe_bytes")
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


def placeholder_default(run, report):
    """What placeholder_with_default keeps in the graph, fed or not."""
    plain, not_fed, fed = (run.case(name) for name in DEFAULT_CASES)
    return _default_stored(data_bytes(report), plain, not_fed) + _default_ran(plain, not_fed, fed)


@rests_on("graph_bytes", "const_bytes")
def _default_stored(x, plain, not_fed):
    stored = not_fed.const_bytes - plain.const_bytes
    if stored < x:
        return [f"placeholder_with_default(X) added {stored:,} Const bytes to the graph, less than X's {x:,}: the "
                f"default is not stored whole."]
    return [f"placeholder_with_default(X) stored its default as a Const: {not_fed.graph_bytes:,} graph bytes "
            f"({not_fed.const_bytes:,} in Consts) against {plain.graph_bytes:,} for a plain placeholder, "
            f"{stored / x:.2f}x X's {x:,} bytes. The GraphDef is the same whether or not it is fed at run time: a "
            f"feed goes to sess.run, not into the graph."]


@rests_on("computes", "seconds")
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


# Each lesson's findings, by its name in spec.pitfalls: one entry per lesson, each reading its run and the report.
TEACHING = {
    "executor-cache": lambda run, report: executor_cache(run),
    "graph-growth": lambda run, report: growth.graph_growth(run),
    "saved-copies": saved_copies,
    "placeholder-default": placeholder_default,
    "folding": lambda run, report: execution.folding(run),
    "pruning": lambda run, report: execution.pruning(run),
    "feed-alignment": lambda run, report: execution.feed_alignment(run),
    "executor-leak": lambda run, report: execution._leaked(run.variant, data_bytes(report), list(run.cases)),
}


def sentences(report):
    """Sentences that hold for this report's numbers, lesson by lesson."""
    said = [line for run in report.rows if run.ok for line in TEACHING[run.lesson](run, report)]
    said += growth.extend_by_variant([r for r in report.rows if r.ok and r.lesson == "graph-growth"])
    return said or ["No lesson produced a result, so there is nothing to explain."]
