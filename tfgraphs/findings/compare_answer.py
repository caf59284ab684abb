"""compare's answer block: why the embedded variants' first run is slow, in a few lines, from this run's numbers."""

import statistics

from tfgraphs.findings.compare import holds_data
from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import MIN_FIRST_RUNS, between, first_runs
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
    """Whether the embedded first runs are slower than the fed one's, judged across fresh workers."""
    judged = {r.variant: first_runs(r.first_runs_s, base.first_runs_s) for r in embedded}
    slower = [v for v, d in judged.items() if d.real and d.delta > 0]
    n = min(len(r.first_runs_s) for r in [*embedded, base])
    if slower:
        return [f"Embedding adds {_span([judged[v].delta for v in slower])} to the first run, once (n>={n}, past the "
                f"spread); why: tfgraphs explain."]
    if all(d.judged for d in judged.values()):
        return [f"The first runs do not differ beyond their spread (n>={n} a side, one per fresh worker)."]
    return [f"First run, embedded minus fed: {_signed_span([d.delta for d in judged.values()])}, on {n} a side: "
            f"too few to judge (--trials {MIN_FIRST_RUNS})."]


def _signed_span(deltas):
    """'+3.4 ms' or '-30.6 to +21.4 ms': one signed value, or the signed range of several."""
    def signed(d):
        return ("-" if d < 0 else "+") + fmt_s(abs(d))
    low, high = signed(min(deltas)), signed(max(deltas))
    if low == high:
        return low
    return f"{low.split()[0]} to {high}" if low.split()[-1] == high.split()[-1] else f"{low} to {high}"


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
    computed = [r for r in embedded if not r.folded]
    if not computed:
        return []
    same = [r for r in computed if not between(r.runs_s, base.runs_s).real]
    if len(same) == len(computed):
        return [f"{join(r.variant for r in computed)}: later runs no different from {base.variant}'s."]
    ratios = join(f"{r.variant} {r.later_median_s / base.later_median_s:.2f}x" for r in computed if r not in same)
    return [f"Later runs against {base.variant}'s: {ratios}."]


@rests_on("runs_s", "graph_bytes")
def _remedy(ok, base):
    """The fed variant, and the variable loaded once with its init, as the remedy with their costs."""
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
