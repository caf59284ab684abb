"""Explain a compare report from its own numbers: the "why" table, memory growth per phase, and sentences."""

import statistics

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import MIN_FIRST_RUNS, between, first_run_count, first_runs, ratio
from tfgraphs.spec import limits, network
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.findings.memory import build_growth, data_bytes, first_run_growth_sentences
from tfgraphs.findings.regimes import regime_sentences
from tfgraphs.units import fmt_bytes, fmt_s, join

EMBEDDED_SHARE = 0.9   # a graph holding at least this share of X's bytes in Const tensors holds X
PEAK_SHARE = 0.05      # peaks closer than this share of the process are not told apart


def holds_data(row, report):
    """True when the row's Const tensors hold (nearly) all of X."""
    return row.const_bytes is not None and row.const_bytes >= EMBEDDED_SHARE * data_bytes(report)


def max_batch(row, report):
    """Largest batch whose GraphDef serializes under 2 GiB (X's bytes plus the measured rest); None if X is not in it."""
    if not holds_data(row, report):
        return None
    per_example = copies_in_graph(row, data_bytes(report)) * network.example_bytes(report.config["dtype"])
    return limits.largest_batch(per_example, overhead_bytes(row, report))


def max_tensor_batch(row, report):
    """Largest batch whose X, as one tensor, TensorFlow accepts at creation; None if X is not in the graph."""
    return limits.max_tensor_batch(report.config["dtype"]) if holds_data(row, report) else None


def copies_in_graph(row, size):
    """How many whole copies of X (of `size` bytes) the row's Const tensors hold (measured, not assumed)."""
    return max(1, int(row.const_bytes // size))


def overhead_bytes(row, report):
    """GraphDef bytes besides the copies of X: the network's nodes, W and protobuf framing."""
    return row.graph_bytes - copies_in_graph(row, data_bytes(report)) * data_bytes(report)


def why_rows(report):
    """Per variant: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    size = data_bytes(report)
    out = []
    for r in report.rows:
        if not r.ok:
            continue
        limit = max_batch(r, report)
        out.append({
            "variant": r.variant,
            "embedded_bytes": r.const_bytes,
            "graph_over_data": ratio(r.graph_bytes, size),
            "max_batch": limit,
            "max_tensor_batch": max_tensor_batch(r, report),
            "first_over_later": ratio(r.first_run_s, r.later_median_s),
            "folded": r.folded,
            "peak_over_data": ratio(r.peak_rss_bytes, size),
        })
    return out


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    ok = [r for r in report.rows if r.ok]
    if not ok:
        return ["No variant produced a result, so there is nothing to explain."]
    size = data_bytes(report)
    embedded = [r for r in ok if holds_data(r, report)]
    fed = [r for r in ok if not holds_data(r, report)]
    base = next((r for r in fed if VARIANTS[r.variant].fed_per_run), fed[0] if fed else None)
    said = [*_graphs(embedded, fed, size), *regime_sentences(embedded)]
    if base is not None and embedded:
        said.extend(_against_base(embedded, base, size))
    said.extend(_remedy(ok, base))
    said.extend(_session(ok))
    ready = [(r.variant, (r.build_s or 0) + (r.session_s or 0) + (r.init_s or 0) + r.first_run_s) for r in ok]
    said.append("Time to the first result (build + session + init + first run): "
                + ", ".join(f"{v} {fmt_s(t)}" for v, t in ready) + ".")
    said.extend(_limit_sentences(embedded, report))
    said.extend(first_run_growth_sentences(ok, report))
    return said


def _graphs(embedded, fed, size):
    """Whether X is stored in each GraphDef, from its bytes against X's."""
    said = []
    if embedded:
        biggest = max(r.graph_bytes for r in embedded)
        said.append(f"The {join(r.variant for r in embedded)} GraphDef{'s are' if len(embedded) > 1 else ' is'} up to "
                    f"{fmt_bytes(biggest)}, {biggest / size:.2f}x the {fmt_bytes(size)} of X: the data is stored in the graph.")
    if fed:
        small = max(r.graph_bytes for r in fed)
        said.append(f"The {join(r.variant for r in fed)} GraphDef{'s are' if len(fed) > 1 else ' is'} at most {small:,} bytes: X is not in "
                    f"{'them' if len(fed) > 1 else 'it'} (`tfgraphs sweep` measures size against batch).")
    return said


def _session(ok):
    """Whether creating the session is where the time goes."""
    slowest_session = max(ok, key=lambda r: r.session_s or 0.0)
    fastest_first = min(r.first_run_s for r in ok)
    if slowest_session.session_s is not None and slowest_session.session_s < 0.05 * fastest_first:
        return [f"Creating the session took at most {fmt_s(slowest_session.session_s)} in every variant, "
                f"under 5% of the fastest first run ({fmt_s(fastest_first)}): the time is not spent there."]
    return []


def _limit_sentences(embedded, report):
    """Per number of copies of X in the graph: the batch each 2 GiB limit allows."""
    size, said, seen = data_bytes(report), [], set()
    for r in embedded:
        copies = copies_in_graph(r, size)
        if copies in seen:
            continue
        seen.add(copies)
        limit = max_batch(r, report)
        held = f", held {copies} times" if copies > 1 else ""
        tensor = max_tensor_batch(r, report)
        said.append(f"In {report.config['dtype']} each example adds "
                    f"{copies * network.example_bytes(report.config['dtype']):,} bytes to {r.variant}'s graph{held}, "
                    f"and its other nodes take {overhead_bytes(r, report):,}; up to batch {limit:,}, "
                    f"{limit / report.config['batch']:.1f}x this run's batch, it stays under the {limits.GRAPHDEF}. "
                    + (f"The {limits.TENSOR}, falls on the same batch." if tensor == limit else
                       f"Each copy of X is one tensor and stays under the {limits.TENSOR}, up to batch {tensor:,}."))
    return said


def _range(samples):
    """'2.29 s (1.93 s to 5.27 s, n=3)': a first run's median with its range."""
    return f"{fmt_s(statistics.median(samples))} ({fmt_s(min(samples))} to {fmt_s(max(samples))}, n={len(samples)})"


def _each(rows, fn):
    """'x (a) and y (b)': one value per variant, for sentences that cover several variants at once."""
    return join(f"{fn(r)} ({r.variant})" for r in rows)


@rests_on("first_runs_s", "runs_s")
def _against_base(embedded, base, size):
    """How the embedded variants compare with the fed baseline, one sentence per phase."""
    said = _build(embedded, base, size)
    b_later = base.later_median_s

    def extra(r):
        """r's first runs against the base's, one per fresh worker each: a folded row's later runs compute nothing,
        so first runs are compared, not their excess over the later runs."""
        return first_runs(r.first_runs_s, base.first_runs_s)

    unjudged = [r for r in embedded if not extra(r).judged]
    if unjudged:
        said.append(f"First run: {_each(unjudged, lambda r: fmt_s(r.first_run_s))} against {fmt_s(base.first_run_s)} "
                    f"for {base.variant}; each rests on {first_run_count(unjudged + [base])} per variant, one per fresh "
                    f"worker, too few to call the difference (--trials {MIN_FIRST_RUNS} judges it).")
    stands_out = [r for r in embedded if extra(r).real and extra(r).delta > 0]
    # A first/later ratio of a folded row spans a regime change: its later runs skip the network.
    computed = [r for r in stands_out if not r.folded]
    if stands_out:
        ratios = (f"First run over median later run: {_each(computed, lambda r: f'{r.first_run_s / r.later_median_s:.1f}x')}, "
                  f"against {base.first_run_s / b_later:.1f}x for {base.variant}. " if computed else "")
        said.append(f"{ratios}The first run took "
                    f"{_each(stands_out, lambda r: fmt_s(extra(r).delta))} more than {base.variant}'s, beyond the "
                    f"spread of first runs on either side ({_each(stands_out, lambda r: fmt_s(extra(r).spread))}, "
                    f"{_each(stands_out, lambda r: extra(r).samples)}), paid once before the first result "
                    f"(`tfgraphs explain` shows what it is spent on).")
    quiet = [r for r in embedded if extra(r).judged and r not in stands_out]
    if quiet:
        said.append(f"This run does not resolve a first-run difference for {join(r.variant for r in quiet)}: "
                    f"{_each(quiet, lambda r: _range(r.first_runs_s))} against {_range(base.first_runs_s)} for "
                    f"{base.variant} (median, min to max), a difference within the larger spread of first "
                    f"runs ({_each(quiet, lambda r: fmt_s(extra(r).spread))}).")
    embedded = [r for r in embedded if not r.folded]
    same = [r for r in embedded if not between(r.runs_s, base.runs_s).real]
    if same:
        said.append(f"Once the first run is paid, later runs take about as long as {base.variant}'s "
                    f"({fmt_s(b_later)} median): {_each(same, lambda r: fmt_s(r.later_median_s))}, no measurable "
                    f"difference against a spread of "
                    f"{_each(same, lambda r: fmt_s(between(r.runs_s, base.runs_s).spread))}.")
    other = [r for r in embedded if r not in same]
    if other:
        said.append(f"Later runs take {_each(other, lambda r: f'{r.later_median_s / b_later:.2f}x')} the time of "
                    f"{base.variant}'s ({fmt_s(b_later)} median); `tfgraphs explain` traces which ops still run.")
    return said + _peaks(embedded, base, size)


@rests_on("build_s", "rss_bytes")
def _build(embedded, base, size):
    """Whether building the embedded variants took clearly longer, and what it added to memory."""
    slow = [r for r in embedded if r.build_s and base.build_s and r.build_s > 3 * base.build_s]
    if not slow:
        return []
    grown = (f", and resident memory grew by {_each(slow, lambda r: f'{build_growth(r, size):.1f}x')} the bytes "
             f"of X")
    # The Const tensors' bytes, counted in the GraphDef, are copies of X; RSS growth is only compared with them.
    matched = all(abs(build_growth(r, size) - copies_in_graph(r, size)) < 0.5 for r in slow)
    held = _each(slow, lambda r: f"{copies_in_graph(r, size)} cop{'ies' if copies_in_graph(r, size) > 1 else 'y'}")
    cause = (f": about the size of the {held} of X that the GraphDef's Const tensors hold" if matched else
             f", not the size of the {held} of X that the GraphDef's Const tensors hold")
    return [f"Building took {_each(slow, lambda r: fmt_s(r.build_s))} against {fmt_s(base.build_s)} for "
            f"{base.variant}{grown}{cause}."]


@rests_on("peak_rss_bytes")
def _peaks(embedded, base, size):
    """Peak memory of the embedded variants against the base's."""
    peaks = [r for r in embedded if r.peak_rss_bytes and base.peak_rss_bytes]
    if not peaks:
        return []
    # Below half of X's bytes, or 5% of the process, the difference is within what the allocator keeps or returns.
    apart = [r for r in peaks if abs(r.peak_rss_bytes - base.peak_rss_bytes)
             >= max(0.5 * size, PEAK_SHARE * base.peak_rss_bytes)]
    said = (f"Peak memory: {_each(peaks, lambda r: fmt_bytes(r.peak_rss_bytes))} against "
            f"{fmt_bytes(base.peak_rss_bytes)} for {base.variant}")
    if not apart:
        return [said + f": within half of X's bytes, or {PEAK_SHARE:.0%} of the process, of each other."]
    return [said + f", a difference of {_each(apart, lambda r: fmt_bytes(r.peak_rss_bytes - base.peak_rss_bytes))} "
                   f"({_each(apart, lambda r: f'{(r.peak_rss_bytes - base.peak_rss_bytes) / size:+.1f}x')} the "
                   f"{fmt_bytes(size)} of X)."]


@rests_on("runs_s")
def _remedy(ok, base):
    """What loading X once bought against feeding it on every run; the loaded row needs its init_s as well."""
    loaded = next((r for r in ok if VARIANTS[r.variant].loaded_once and r.init_s is not None), None)
    if loaded is None or base is None or not VARIANTS[base.variant].fed_per_run:
        return []
    v_later, p_later = loaded.later_median_s, base.later_median_s
    change = (v_later - p_later) / p_later * 100
    d = between(loaded.runs_s, base.runs_s)
    if not d.real:
        trend = f"against {base.variant}'s {fmt_s(p_later)}, no measurable difference (spread {fmt_s(d.spread)})"
    else:
        trend = f"{abs(change):.0f}% {'less' if change < 0 else 'more'} than {base.variant}'s {fmt_s(p_later)}"
    # The initializer is the session's first run: it pays what any first run pays, beside the bytes of X it loads.
    return [f"{loaded.variant}'s init, the session's first run (the initializer, fed X), took "
            f"{fmt_s(loaded.init_s)} once; its later runs need no feed and took {fmt_s(v_later)} median, {trend}, "
            f"with a GraphDef of {loaded.graph_bytes:,} bytes."]
