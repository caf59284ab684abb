"""compare's answer block: why the embedded variants' first run is slow, in a few lines, from this run's numbers."""

import math
import statistics

from tfgraphs.findings.compare import first_run_verdict, holds_data, later_verdict, too_few
from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.judge import FEWEST, RANK_SUM
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_bytes, fmt_s, join


def answer(report):
    """At most six lines: the embedded first runs against their later runs and the fed one's, whether the excess is
    paid once, whether later runs differ, and the remedy with its cost."""
    ok = [r for r in report.rows if r.ok]
    embedded = [r for r in ok if holds_data(r, report)]
    fed = [r for r in ok if not holds_data(r, report)]
    base = next((r for r in fed if VARIANTS[r.variant].fed_per_run), None)
    if not embedded or base is None:
        return _no_pair(ok, embedded, base)
    # A folded variant's later runs are the answer's news; how the rest compare is among the findings.
    later = _precomputed(embedded) or _later(embedded, base)
    return [*_first(embedded, base), *_once(embedded, base), *later, *_remedy(ok, base)]


def _span(values):
    """'29.1 ms' or '27.3-30.5 ms': one value, or the range of several."""
    low, high = fmt_s(min(values)), fmt_s(max(values))
    if low == high:
        return low
    return f"{low.split()[0]}-{high}" if low.split()[-1] == high.split()[-1] else f"{low} to {high}"


@rests_on("first_run_s", "runs_s", "graph_bytes")
def _first(embedded, base):
    """The embedded first runs against their own later runs, and the fed variant's first run."""
    return [f"Embedded X (graph up to {fmt_bytes(max(r.graph_bytes for r in embedded))}): first run "
            f"{_span([r.first_run_s for r in embedded])}, later runs {_span([r.later_median_s for r in embedded])} "
            f"median.",
            f"Fed ({base.variant}, {base.graph_bytes:,}-byte graph): first run {fmt_s(base.first_run_s)}, later "
            f"runs {fmt_s(base.later_median_s)} median."]


@rests_on("first_runs_s")
def _once(embedded, base):
    """Whether the embedded first runs differ from the fed one's, judged across fresh workers."""
    verdicts = {r.variant: first_run_verdict(r, base) for r in embedded}
    return [_line("First run, embedded vs fed: ", verdicts, f"--trials {FEWEST[RANK_SUM]}")]


def _line(head, verdicts, more):
    """One answer line of at most 100 columns: the outcome all variants share, told by the weakest verdict (the
    largest p, or for "no difference" the interval reaching farthest); below the fewest samples only the outcome and
    what to run; mixed outcomes are named per variant, their intervals left to the findings."""
    kinds = {(v.outcome, v.larger) for v in verdicts.values()}
    if len(kinds) > 1:
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


@rests_on("folded")
def _precomputed(embedded):
    """The embedded variants whose later runs computed nothing, as an untimed run after the timed ones saw."""
    folded = [r for r in embedded if r.folded]
    if not folded:
        return []
    return [f"Later runs of {join(r.variant for r in folded)}: no Conv2D ran, folded from the graph's X (new "
            f"data needs a feed)."]


@rests_on("runs_s")
def _later(embedded, base):
    """Later runs of the embedded variants that still compute the network, against the fed variant's."""
    computed = {r.variant: later_verdict(r, base) for r in embedded if not r.folded}
    return [_line("Later runs vs fed: ", computed, f"--full-trials {FEWEST[RANK_SUM]}")] if computed else []


@rests_on("runs_s", "graph_bytes")
def _remedy(ok, base):
    """What keeps X out of the graph (the fed line above gives its bytes): the fed variant, and the variable loaded
    once with its init; their run times are data, judged in the findings."""
    loaded = next((r for r in ok if VARIANTS[r.variant].loaded_once and r.init_s is not None and r.runs_s), None)
    told = f"Remedy: a {base.variant} ({fmt_s(base.later_median_s)} a run)"
    if loaded is None:
        return [told + "."]
    return [told + f" or a {loaded.variant} loaded once ({fmt_s(loaded.init_s)} init, "
                   f"{fmt_s(statistics.median(loaded.runs_s))} a run)."]


def _no_pair(ok, embedded, base):
    """Without an embedded and a fed variant side by side, the answer is what there is to compare."""
    if not ok:
        return ["Answer: no variant produced a result."]
    return [f"Answer: this run has no {'variant holding X in its graph' if not embedded else 'variant fed per run'} "
            f"to compare against; add it with --variants."]
