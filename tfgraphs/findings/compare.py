"""What a compare report tells a reader, declared as data: each finding's evidence, when it is said, its sentence;
the headline ones open the page, the rest are its findings. All are said over one view of the report's rows."""

import math
import statistics

from tfgraphs.findings import compare_said as said
from tfgraphs.findings.compare_view import (View, first_run_verdict, holds_data, later_verdict, max_batch,
                                            max_tensor_batch, too_few)
from tfgraphs.findings.evidence import Finding, judged, said_by
from tfgraphs.findings.memory import first_run_growth, first_run_growth_sentences
from tfgraphs.findings.regimes import regime_sentences
from tfgraphs.records.judge import FEWEST, RANK_SUM
from tfgraphs.records.stats import ratio
from tfgraphs.units import fmt_bytes, fmt_s, join

__all__ = ["DECLARED", "answer", "holds_data", "regime_sentences", "sentences", "told", "why_rows"]


def why_rows(report):
    """Per variant: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    view = View.of(report)
    return [{"variant": r.variant, "embedded_bytes": r.const_bytes, "graph_over_data": ratio(r.graph_bytes, view.size),
             "max_batch": max_batch(r, report), "max_tensor_batch": max_tensor_batch(r, report),
             "first_over_later": ratio(r.first_run_s, r.later_median_s), "folded": r.folded,
             "peak_over_data": ratio(r.peak_rss_bytes, view.size)} for r in view.ok]


def _span(values):
    """'29.1 ms' or '27.3-30.5 ms': one value, or the range of several."""
    low, high = fmt_s(min(values)), fmt_s(max(values))
    if low == high:
        return low
    return f"{low.split()[0]}-{high}" if low.split()[-1] == high.split()[-1] else f"{low} to {high}"


def _first_and_later(v):
    """The embedded first runs against their own later runs, and the fed variant's first run."""
    return [f"Embedded X (graph up to {fmt_bytes(max(r.graph_bytes for r in v.embedded))}): first run "
            f"{_span([r.first_run_s for r in v.embedded])}, later runs "
            f"{_span([r.later_median_s for r in v.embedded])} median.",
            f"Fed ({v.base.variant}, {v.base.graph_bytes:,}-byte graph): first run {fmt_s(v.base.first_run_s)}, "
            f"later runs {fmt_s(v.base.later_median_s)} median."]


def _line(head, verdicts, more):
    """One answer line of at most 100 columns: the outcome all variants share, told by the weakest verdict (the
    largest p, or for "no difference" the interval reaching farthest); below the fewest samples only the outcome and
    what to run; mixed outcomes are named per variant, their intervals left to the findings."""
    if len({(v.outcome, v.larger) for v in verdicts.values()}) > 1:
        return judged(head + ", ".join(f"{name} {v.phrase()}" for name, v in verdicts.items()) + "; see the findings.",
                      *verdicts.values())
    weakest = max(verdicts.values(), key=_weakness)
    if too_few(verdicts.values()):
        return judged(f"{head}{weakest.phrase()}; {more}.", *verdicts.values())
    return judged(f"{head}{weakest.brief()}.", *verdicts.values())


def _weakness(v):
    """How little a verdict rests on: its p, or for "no difference" how far its interval reaches from no effect."""
    if v.same:
        return max(abs(math.log(v.low)), abs(math.log(v.high))) if v.scale == "ratio" else max(-v.low, v.high)
    return 1.0 if v.p is None else v.p


def _computed(v):
    """The embedded rows whose later runs still computed the network."""
    return [r for r in v.embedded if not r.folded]


def _remedy(v):
    """What keeps X out of the graph: the fed variant, and the variable loaded once with its init."""
    loaded = said.loaded_once(v, runs=True)
    head = f"Remedy: a {v.base.variant} ({fmt_s(v.base.later_median_s)} a run)"
    if loaded is None:
        return [head + "."]
    return [head + f" or a {loaded.variant} loaded once ({fmt_s(loaded.init_s)} init, "
                   f"{fmt_s(statistics.median(loaded.runs_s))} a run)."]


def _paired(v):
    """True when the whole view (before evidence was asked for) holds an embedded and a fed-per-run row."""
    return (v.whole or v).paired


def _folded(v):
    return [r for r in v.embedded if r.folded]


def _session_short(v):
    """True when every worker's session took under 5% of the shortest first run of any worker."""
    sessions, firsts = said.session_samples(v)
    return bool(sessions and firsts) and max(sessions) < 0.05 * min(firsts)


def _unpaired(v):
    missing = "variant fed per run" if v.embedded else "variant holding X in its graph"
    return [f"Answer: this run has no {missing} to compare against; add it with --variants."]


LATER = f"--full-trials {FEWEST[RANK_SUM]}"
AGAINST = ("first_runs_s", "runs_s")   # the evidence every comparison with the fed variant rests on
# compare's findings, in the order they are said: the headline ones are the answer block, the others the findings.
DECLARED = (
    Finding("compare.no_result", (), lambda v: not v.ok, lambda v: ["Answer: no variant produced a result."], True,
            "Answer: no variant produced a result.", "some variant produced a result"),
    Finding("compare.unpaired", (), lambda v: v.ok and not v.paired, _unpaired, True,
            "Answer: this run has no {variant holding X in its graph | variant fed per run} to compare against; add "
            "it with --variants.", "the run has a variant holding X in its graph and one fed X on every run"),
    Finding("compare.first_and_later", ("first_run_s", "runs_s", "graph_bytes"),
            lambda v: _paired(v) and v.paired, _first_and_later, True,
            "Embedded X (graph up to {bytes}): first run {time}, later runs {time} median. / Fed ({variant}, "
            "{bytes}-byte graph): first run {time}, later runs {time} median.",
            "the run lacks an embedded or a fed-per-run variant"),
    Finding("compare.first_run_verdict", ("first_runs_s",), lambda v: _paired(v) and v.paired,
            lambda v: [_line("First run, embedded vs fed: ", {r.variant: first_run_verdict(r, v.base)
                                                              for r in v.embedded}, f"--trials {FEWEST[RANK_SUM]}")],
            True, "First run, embedded vs fed: {the judge's verdict on the first runs of fresh workers}.",
            "the run lacks an embedded or a fed-per-run variant"),
    Finding("compare.folded", ("folded",), lambda v: _paired(v) and _folded(v),
            lambda v: [f"Later runs of {join(r.variant for r in _folded(v))}: no Conv2D ran, folded from the graph's "
                       f"X (new data needs a feed)."], True,
            "Later runs of {variants}: no Conv2D ran, folded from the graph's X (new data needs a feed).",
            "no embedded variant's later runs were folded (Conv2D ran in an untimed run after the timed ones)"),
    Finding("compare.later_verdict", ("runs_s",),
            lambda v: _paired(v) and not _folded(v.whole) and v.base is not None and _computed(v),
            lambda v: [_line("Later runs vs fed: ", {r.variant: later_verdict(r, v.base) for r in _computed(v)},
                             LATER)], True,
            "Later runs vs fed: {the judge's verdict on the later runs' medians, one a worker}.",
            "the run lacks an embedded or a fed-per-run variant, or an embedded variant's later runs were folded "
            "(the answer says that instead)"),
    Finding("compare.remedy", ("runs_s", "graph_bytes"), lambda v: _paired(v) and v.base is not None, _remedy, True,
            "Remedy: a {fed variant} ({time} a run), or a {variable} loaded once ({time} init, {time} a run) "
            "where one ran.",
            "the run lacks an embedded or a fed-per-run variant"),
    Finding("compare.nothing", (), lambda v: not v.ok,
            lambda v: ["No variant produced a result, so there is nothing to explain."], False,
            "No variant produced a result, so there is nothing to explain.", "some variant produced a result"),
    Finding("compare.embedded_graphs", ("graph_bytes",), lambda v: v.embedded, said.embedded_graphs, False,
            "The {variants} GraphDef(s) is/are up to {bytes}, {ratio}x the {bytes} of X: the data is stored in the "
            "graph.", "no variant's Const tensors hold 90% of X's bytes"),
    Finding("compare.fed_graphs", ("graph_bytes",), lambda v: v.fed, said.fed_graphs, False,
            "The {variants} GraphDef(s) is/are at most {bytes} bytes: X is not in it/them (`tfgraphs sweep` measures "
            "size against batch).", "every variant holds X in its graph"),
    Finding("compare.regime", ("partition_computes", "replaced_by_const"), lambda v: v.embedded,
            lambda v: regime_sentences(list(v.embedded)), False,
            "In {variants}, constant folding replaced the network: ... / In {variants}, the graph that ran after the "
            "first run still holds Conv2D (partition graphs): the network was not folded, and later runs compute it.",
            "no embedded variant's graph that ran was read (partition graphs of an untimed run)"),
    Finding("compare.build", (*AGAINST, "build_s", "rss_bytes"),
            lambda v: v.against is not None and v.against.build_s and any(r.build_s for r in v.embedded),
            said.building, False,
            "Building against {variant}'s {time}: {variant} {time}, {verdict}; resident memory grew by {ratio}x the "
            "bytes of X: about / not the size of the {n} copies of X that the GraphDef's Const tensors hold.",
            "no embedded variant and no fed variant to build against, or a build time is missing"),
    Finding("compare.first_run", AGAINST, lambda v: v.against is not None and v.embedded, said.first_runs, False,
            "First run longer than / shorter than / about as long as / against {variant}'s {time}: {variant} {time}, "
            "{verdict} (one sentence per outcome).", "no embedded variant, or no fed variant to compare with"),
    Finding("compare.later_runs", AGAINST, lambda v: v.against is not None and _computed(v), said.later_runs, False,
            "Later runs longer than / shorter than / about as long as / against {variant}'s {time} median: "
            "{variant} {time}, {verdict}.",
            "no embedded variant that still computes the network, or no fed variant to compare with"),
    Finding("compare.peaks", (*AGAINST, "peak_rss_bytes"),
            lambda v: v.against is not None and v.against.peak_rss_bytes
            and any(r.peak_rss_bytes for r in _computed(v)), said.peaks, False,
            "Peak memory against {variant}'s {bytes}: {variant} {bytes}, {verdict}; a difference of {bytes} "
            "({ratio}x the {bytes} of X), where they differ.",
            "no embedded variant that still computes the network, no fed variant, or no peak measured"),
    Finding("compare.loaded_once", ("runs_s", "graph_bytes"),
            lambda v: v.base is not None and said.loaded_once(v) is not None, said.remedy, False,
            "{variable}'s init, the session's first run (the initializer, fed X), took {time} once; its later runs "
            "need no feed and took {time} median against {fed variant}'s {time}: {verdict}; its GraphDef is {bytes} "
            "bytes.", "the run has no variable loaded once with its init timed, or no variant fed per run"),
    Finding("compare.session", ("session_s", "first_run_s"),
            _session_short, said.session_cost, False,
            "Creating the session took at most {time} in every worker, under 5% of the shortest first run of any "
            "worker ({time}): the time is not spent there.",
            "some worker's session took 5% of the shortest first run or more"),
    Finding("compare.ready", ("first_run_s",), lambda v: v.ok, said.ready, False,
            "Time to the first result (build + session + init + first run): {variant} {time}, ...",
            "no variant produced a result"),
    Finding("compare.limits", ("const_bytes", "graph_bytes"), lambda v: v.embedded, said.limit_sentences, False,
            "In {dtype} each example adds {bytes} bytes to {variant}'s graph, and its other nodes take {bytes}; up "
            "to batch {n}, {ratio}x this run's batch, it stays under the 2 GiB GraphDef limit. ...",
            "no variant's Const tensors hold 90% of X's bytes"),
    Finding("compare.first_run_growth", ("rss_bytes",),
            lambda v: any(first_run_growth(r) is not None for r in v.ok),
            lambda v: first_run_growth_sentences(list(v.ok), v.report), False,
            "The first run's resident-memory growth, in units of X's bytes: {ratio}x ({variant}). For scale only, "
            "the conv, pool and relu outputs are {ratio}x X's bytes ({bytes}), computed from shapes and dtype, ...",
            "no worker measured its resident memory before and after the first run"),
)


def told(report):
    """(the answer, the findings): every declaration said over one view of the report, split by headline."""
    view = View.of(report)
    return (said_by(tuple(f for f in DECLARED if f.headline), view),
            said_by(tuple(f for f in DECLARED if not f.headline), view))


def answer(report):
    """At most six lines: the embedded first runs against their later runs and the fed one's, whether the excess is
    paid once, whether later runs differ, and the remedy with its cost."""
    return told(report)[0]


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    return told(report)[1]
