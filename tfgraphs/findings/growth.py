"""What a graph that grows on every step costs: its nodes, its steps against a fixed loop's, the session's Extend."""

import statistics

from tfgraphs.findings.cases import short_s, signed_bytes
from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.judge import judge
from tfgraphs.spec.pitfalls import GROWTH_CASES
from tfgraphs.units import fmt_s, join


@rests_on("nodes")
def _growth(variant, leak, once):
    growth = [b - a for a, b in zip(leak.nodes, leak.nodes[1:])]
    if not growth or min(growth) <= 0:
        return [f"{variant}: the graph did not grow on every leaky step (nodes {leak.nodes[0]} -> "
                f"{leak.nodes[-1]})."]
    per = f"{growth[0]}" if len(set(growth)) == 1 else f"{min(growth)} to {max(growth)}"
    return [f"{variant}: the graph grew by {per} nodes on every step that created an op "
            f"({leak.nodes[0]} -> {leak.nodes[-1]} over {len(leak.nodes)} steps); with the op created once "
            f"it {'stayed at' if len(set(once.nodes)) == 1 else 'went'} "
            f"{' -> '.join(str(n) for n in dict.fromkeys(once.nodes))} nodes."]


@rests_on("extend_s")
def _extend(variant, leak, once):
    """The session's Extend, timed alone before each run: a leaky step's against the fixed loop's, step by step (the
    two loops take turns, so step i of each is a pair)."""
    new, none = leak.extend_s[1:], once.extend_s[1:]
    if not new or not none:
        return []
    v = judge(new, none, paired=True)
    why = (" Among the whole-graph work of an Extend, graph_execution_state.cc copies every NodeDef of the graph so "
           "far into a new GraphDef." if v.larger else "")
    return [judged(f"{variant}: after the first step, Session._extend_graph() alone, timed before each run, took a "
                   f"median {short_s(statistics.median(new))} on a step with a new op against "
                   f"{short_s(statistics.median(none))} when no op was new: {v.says(fmt_s)}.{why}", v)]


def extend_by_variant(runs):
    """A leaky step's Extend in each of two variants, one against the other (each variant in its own worker)."""
    leaks = [(r.variant, r.case(GROWTH_CASES[0])) for r in runs if r.case(GROWTH_CASES[0]) is not None]
    return _extend_between(*leaks[0], *leaks[1]) if len(leaks) == 2 else []


@rests_on("extend_s", "graph_bytes")
def _extend_between(a, leak_a, b, leak_b):
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


@rests_on("rss_bytes")
def _growth_rss(variant, leak, once):
    return [f"{variant}: resident memory changed by {signed_bytes(leak.rss_bytes)} over the leaky loop and "
            f"by {signed_bytes(once.rss_bytes)} over the other."]


@rests_on("step_s")
def _step_cost(variant, leak, once):
    """The leaky loop's steps after the first against the fixed loop's, step by step (pairs: the loops take turns),
    when the fixed loop's op computes the network (its partition graphs say so)."""
    a, b = statistics.median(leak.step_s[1:]), statistics.median(once.step_s[1:])
    if once.computes is not None and not once.computes["Conv2D"]:
        # A folded op computes nothing: a ratio against it would set a whole network against a constant.
        return [f"{variant}: after the first step, each step that created an op took {fmt_s(a)}; the op made once "
                f"was folded "
                f"into a constant (no Conv2D in the graph that ran"
                + (f"; the Const {join(once.replaced_by_const)} stands in its place" if once.replaced_by_const else "")
                + f": partition graphs), so its {short_s(b)} steps compute "
                f"nothing and are no baseline for the leaky steps (whose graphs that ran were not recorded)."]
    v = judge(leak.step_s[1:], once.step_s[1:], paired=True)
    reused = ("a step that reused its op and still computed the network (partition graphs)" if once.computes else
              "a step that reused its op (whether that op still computed the network was not measured)")
    text = (f"{variant}: after the first step, a step that created an op took {fmt_s(a)} against {short_s(b)} for "
            f"{reused}, slower on {v.above} of {v.n_a} steps: {v.says(fmt_s)}")
    if v.larger:
        return [judged(text + ": every new op is a new fetch, which the session's executor cache, keyed by feeds, "
                       "fetches and targets (direct_session.cc), has not seen; how the extra splits among making the "
                       "op, adding it to the session's graph and the run is not measured here.", v)]
    return [judged(text + ".", v)]
