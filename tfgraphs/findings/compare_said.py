"""The sentences of compare's findings, each from the one view of the report's rows (compare_view.View)."""

from tfgraphs.findings.compare_view import (by_outcome, copies_in_graph, first_run_verdict, later_verdict,
                                            max_batch, max_tensor_batch, overhead_bytes, per_trial, told, too_few,
                                            verdict_text)
from tfgraphs.findings.evidence import judged
from tfgraphs.findings.memory import build_growth, each
from tfgraphs.records.judge import FEWEST, RANK_SUM, judge
from tfgraphs.spec import limits, network
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_bytes, fmt_s, join

PEAK_SHARE = 0.05      # peaks within this share of the process (or half of X's bytes) are no difference


def embedded_graphs(v):
    """How large the GraphDefs holding X are, against X's bytes."""
    biggest = max(r.graph_bytes for r in v.embedded)
    many = len(v.embedded) > 1
    return [f"The {join(r.variant for r in v.embedded)} GraphDef{'s are' if many else ' is'} up to "
            f"{fmt_bytes(biggest)}, {biggest / v.size:.2f}x the {fmt_bytes(v.size)} of X: the data is stored in the "
            f"graph."]


def fed_graphs(v):
    """How small the GraphDefs of the fed variants are: X is not in them."""
    small, many = max(r.graph_bytes for r in v.fed), len(v.fed) > 1
    return [f"The {join(r.variant for r in v.fed)} GraphDef{'s are' if many else ' is'} at most {small:,} bytes: X "
            f"is not in {'them' if many else 'it'} (`tfgraphs sweep` measures size against batch)."]


def session_cost(v):
    """Every worker's session against every worker's first run, so "at most" holds of each sample, not of a median."""
    sessions, firsts = session_samples(v)
    return [f"Creating the session took at most {fmt_s(max(sessions))} in every worker, under 5% of the shortest "
            f"first run of any worker ({fmt_s(min(firsts))}): the time is not spent there."]


def session_samples(v):
    """(each worker's session time, each worker's first run) over the ok rows."""
    sessions = [s for r in v.ok for s in (per_trial(r, "session_s") or (r.session_s,)) if s is not None]
    firsts = [f for r in v.ok for f in (r.first_runs_s or (r.first_run_s,)) if f is not None]
    return sessions, firsts


def ready(v):
    """Build, session, init and first run added up per variant."""
    times = [(r.variant, (r.build_s or 0) + (r.session_s or 0) + (r.init_s or 0) + r.first_run_s) for r in v.ok]
    return ["Time to the first result (build + session + init + first run): "
            + ", ".join(f"{name} {fmt_s(t)}" for name, t in times) + "."]


def limit_sentences(v):
    """Per number of copies of X in the graph: the batch each 2 GiB limit allows."""
    report, said, seen = v.report, [], set()
    dtype = report.config.dtype
    for r in v.embedded:
        copies = copies_in_graph(r, v.size)
        if copies in seen:
            continue
        seen.add(copies)
        limit, tensor = max_batch(r, report), max_tensor_batch(r, report)
        held = f", held {copies} times" if copies > 1 else ""
        said.append(f"In {dtype} each example adds {copies * network.example_bytes(dtype):,} bytes to {r.variant}'s "
                    f"graph{held}, and its other nodes take {overhead_bytes(r, report):,}; up to batch {limit:,}, "
                    f"{limit / report.config.batch:.1f}x this run's batch, it stays under the {limits.GRAPHDEF}. "
                    + (f"The {limits.TENSOR}, falls on the same batch." if tensor == limit else
                       f"Each copy of X is one tensor and stays under the {limits.TENSOR}, up to batch {tensor:,}."))
    return said


def first_runs(v):
    """The embedded first runs against the base's, one sentence per outcome."""
    base = v.against
    firsts = by_outcome(v.embedded, lambda r: first_run_verdict(r, base))
    against = f"{base.variant}'s {fmt_s(base.first_run_s)}"
    # A first/later ratio of a folded row spans a regime change: its later runs skip the network.
    computed = [r for r, _ in firsts.get("larger", []) if not r.folded]
    ratios = (f"First run over median later run: {each(computed, lambda r: f'{r.first_run_s / r.later_median_s:.1f}x')}"
              f", against {base.first_run_s / base.later_median_s:.1f}x for {base.variant}. " if computed else "")
    unknown = [verdict for _, verdict in firsts.get("cannot tell", [])]
    more = f"; run with --trials {FEWEST[RANK_SUM]} or more to tell" if too_few(unknown) else ""
    forms = {"larger": (f"{ratios}First run longer than {against}, paid once before the first result: ",
                        "; `tfgraphs explain` shows what it is spent on."),
             "smaller": (f"First run shorter than {against}: ", "."),
             "same": (f"First run about as long as {against}: ", "."),
             "cannot tell": (f"First run against {against}: ", f"{more}.")}
    return [judged(f"{forms[kind][0]}{told(pairs, lambda r: fmt_s(r.first_run_s))}{forms[kind][1]}",
                   *(verdict for _, verdict in pairs)) for kind, pairs in firsts.items()]


def later_runs(v):
    """Later runs of the embedded variants that still compute the network, against the base's."""
    base = v.against
    later = by_outcome([r for r in v.embedded if not r.folded], lambda r: later_verdict(r, base))
    against = f"{base.variant}'s {fmt_s(base.later_median_s)} median"
    unknown = [verdict for _, verdict in later.get("cannot tell", [])]
    more = f"; run with --full-trials {FEWEST[RANK_SUM]} or more to tell" if too_few(unknown) else ""
    forms = {"larger": (f"Later runs longer than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "smaller": (f"Later runs shorter than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "same": (f"Once the first run is paid, later runs take about as long as {against}: ", "."),
             "cannot tell": (f"Later runs against {against}: ", f"{more}.")}
    return [judged(f"{forms[kind][0]}{told(pairs, lambda r: fmt_s(r.later_median_s))}{forms[kind][1]}",
                   *(verdict for _, verdict in pairs)) for kind, pairs in later.items()]


def building(v):
    """How long building the embedded variants took against the base, and what it added to memory."""
    base, size = v.against, v.size
    pairs = [(r, judge(per_trial(r, "build_s"), per_trial(base, "build_s"))) for r in v.embedded if r.build_s]
    built = [r for r, _ in pairs]
    # The Const tensors' bytes, counted in the GraphDef, are copies of X; RSS growth is only compared with them.
    matched = all(abs(build_growth(r, size) - copies_in_graph(r, size)) < 0.5 for r in built)
    copies = [copies_in_graph(r, size) for r in built]
    owner = "their GraphDefs'" if len(copies) > 1 else "the GraphDef's"
    held = f"{join(copies)} cop{'y' if copies == [1] else 'ies'} of X that {owner} Const tensors hold"
    grown = (f"; resident memory grew by {join(f'{build_growth(r, size):.1f}x' for r in built)} the bytes of X"
             + (f": about the size of the {held}" if matched else f", not the size of the {held}"))
    return [judged(f"Building against {base.variant}'s {fmt_s(base.build_s)}: "
                   f"{told(pairs, lambda r: fmt_s(r.build_s))}{grown}.", *(verdict for _, verdict in pairs))]


def peaks(v):
    """Peak memory of the embedded variants that compute the network against the base's, one peak per fresh worker
    a side."""
    base, size = v.against, v.size
    rows = [r for r in v.embedded if not r.folded and r.peak_rss_bytes]
    # Within half of X's bytes, or PEAK_SHARE of the process, a peak is what the allocator keeps or returns.
    slack = max(0.5 * size, PEAK_SHARE * base.peak_rss_bytes)
    pairs = [(r, judge(per_trial(r, "peak_rss_bytes"), per_trial(base, "peak_rss_bytes"),
                       margin=1 + slack / base.peak_rss_bytes)) for r in rows]
    apart = [r for r, verdict in pairs if verdict.differs]
    grown = (f"; a difference of {each(apart, lambda r: fmt_bytes(r.peak_rss_bytes - base.peak_rss_bytes))} "
             f"({each(apart, lambda r: f'{(r.peak_rss_bytes - base.peak_rss_bytes) / size:+.1f}x')} the "
             f"{fmt_bytes(size)} of X)" if apart else "")
    slack_told = (f" (within half of X's bytes or {PEAK_SHARE:.0%} of the process, what the allocator keeps or "
                  f"returns)" if any(verdict.same for _, verdict in pairs) else "")
    return [judged(f"Peak memory against {base.variant}'s {fmt_bytes(base.peak_rss_bytes)}: "
                   f"{told(pairs, lambda r: fmt_bytes(r.peak_rss_bytes))}{slack_told}{grown}.",
                   *(verdict for _, verdict in pairs))]


def loaded_once(v, runs=False):
    """The first ok row that loads X once into graph state and was initialised (with later runs, when runs)."""
    return next((r for r in v.ok if VARIANTS[r.variant].loaded_once and r.init_s is not None
                 and (r.runs_s or not runs)), None)


def remedy(v):
    """What loading X once bought against feeding it on every run."""
    loaded, base = loaded_once(v), v.base
    verdict = later_verdict(loaded, base)
    direction = "less, " if verdict.smaller else "more, " if verdict.larger else ""
    # The initializer is the session's first run: it pays what any first run pays, beside the bytes of X it loads.
    return [judged(f"{loaded.variant}'s init, the session's first run (the initializer, fed X), took "
                   f"{fmt_s(loaded.init_s)} once; its later runs need no feed and took {fmt_s(loaded.later_median_s)} "
                   f"median against {base.variant}'s {fmt_s(base.later_median_s)}: {direction}"
                   f"{verdict_text(verdict)}; its GraphDef is {loaded.graph_bytes:,} bytes.", verdict)]
