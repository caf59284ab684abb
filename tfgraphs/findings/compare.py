"""Explain a compare report from its own numbers: the "why" table, memory growth per phase, and sentences."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.judge import CANNOT_TELL, FEWEST, RANK_SUM, judge
from tfgraphs.records.stats import ratio
from tfgraphs.spec import limits, network
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.findings.memory import build_growth, data_bytes, first_run_growth_sentences
from tfgraphs.findings.regimes import regime_sentences
from tfgraphs.units import fmt_bytes, fmt_s, join

EMBEDDED_SHARE = 0.9   # a graph holding at least this share of X's bytes in Const tensors holds X
PEAK_SHARE = 0.05      # peaks within this share of the process (or half of X's bytes) are no difference


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
    """Whether creating the session is where the time goes: every worker's session against every worker's first run,
    so "at most" holds of each sample, not of a median."""
    sessions = [s for r in ok for s in (per_trial(r, "session_s") or (r.session_s,)) if s is not None]
    firsts = [f for r in ok for f in (r.first_runs_s or (r.first_run_s,)) if f is not None]
    if sessions and firsts and max(sessions) < 0.05 * min(firsts):
        return [f"Creating the session took at most {fmt_s(max(sessions))} in every worker, under 5% of the shortest "
                f"first run of any worker ({fmt_s(min(firsts))}): the time is not spent there."]
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


def _each(rows, fn):
    """'x (a) and y (b)': one value per variant, for sentences that cover several variants at once."""
    return join(f"{fn(r)} ({r.variant})" for r in rows)


def first_run_verdict(row, base):
    """row's first runs against the base's, one per fresh worker each: independent samples. A folded row's later
    runs compute nothing, so first runs are compared, not their excess over the later runs."""
    return judge(row.first_runs_s, base.first_runs_s)


def later_verdict(row, base):
    """row's later runs against the base's, one median a worker: the variants ran in different workers, and runs of
    one worker are not independent samples of a variant."""
    return judge(row.later_medians_s, base.later_medians_s)


def too_few(verdicts):
    """True when a side of some verdict has fewer samples than its test needs to say "differs"."""
    return any(min(v.n_a, v.n_b) < FEWEST[v.method] for v in verdicts)


def verdict_text(v, unit=None):
    """The verdict as printed: below the fewest samples its test needs there is no interval, so the outcome alone
    (which names n); else the outcome with effect, interval, n and p."""
    return v.phrase(unit) if too_few([v]) else v.says(unit)


def by_outcome(rows, verdict_of):
    """{"larger" | "smaller" | "same" | "cannot tell": [(row, verdict)]}, in the rows' order, empty groups left out."""
    groups = {}
    for r in rows:
        v = verdict_of(r)
        kind = "larger" if v.larger else "smaller" if v.smaller else "same" if v.same else "cannot tell"
        groups.setdefault(kind, []).append((r, v))
    return groups


def _told(pairs, value):
    """'constant 3.00 s, differs (x20.0, ...)', or one outcome shared by several rows said once: 'no difference
    beyond 25% for each: numpy 27.8 ms (x1.02, ...); constant 27.3 ms (...)'. Below the fewest samples the test
    needs there is no interval to give: 'numpy 27.8 ms and constant 27.3 ms: cannot tell with n=1 and 1 (...)'."""
    phrases = {v.phrase() for _, v in pairs}
    if len(phrases) == 1 and too_few([v for _, v in pairs]):
        return f"{join(f'{r.variant} {value(r)}' for r, _ in pairs)}: {phrases.pop()}"
    if len(pairs) == 1 or len(phrases) > 1:
        return "; ".join(f"{r.variant} {value(r)}, {verdict_text(v)}" for r, v in pairs)
    # As says() puts it: a "cannot tell" phrase names n already.
    return f"{phrases.pop()} for each: " + "; ".join(
        f"{r.variant} {value(r)} ({v.detail(samples=v.outcome != CANNOT_TELL)})" for r, v in pairs)


@rests_on("first_runs_s", "runs_s")
def _against_base(embedded, base, size):
    """How the embedded variants compare with the fed baseline, one sentence per phase and outcome."""
    said = _build(embedded, base, size)
    b_later = base.later_median_s
    firsts = by_outcome(embedded, lambda r: first_run_verdict(r, base))
    against = f"{base.variant}'s {fmt_s(base.first_run_s)}"
    longer = firsts.get("larger", [])
    # A first/later ratio of a folded row spans a regime change: its later runs skip the network.
    computed = [r for r, _ in longer if not r.folded]
    ratios = (f"First run over median later run: {_each(computed, lambda r: f'{r.first_run_s / r.later_median_s:.1f}x')}, "
              f"against {base.first_run_s / b_later:.1f}x for {base.variant}. " if computed else "")
    unknown = [v for _, v in firsts.get("cannot tell", [])]
    more = f"; run with --trials {FEWEST[RANK_SUM]} or more to tell" if too_few(unknown) else ""
    forms = {"larger": (f"{ratios}First run longer than {against}, paid once before the first result: ",
                        "; `tfgraphs explain` shows what it is spent on."),
             "smaller": (f"First run shorter than {against}: ", "."),
             "same": (f"First run about as long as {against}: ", "."),
             "cannot tell": (f"First run against {against}: ", f"{more}.")}
    said.extend(judged(f"{forms[kind][0]}{_told(pairs, lambda r: fmt_s(r.first_run_s))}{forms[kind][1]}",
                       *(v for _, v in pairs)) for kind, pairs in firsts.items())
    said.extend(_later(embedded, base))
    return said + _peaks([r for r in embedded if not r.folded], base, size)


def _later(embedded, base):
    """Later runs of the embedded variants that still compute the network, against the base's."""
    later = by_outcome([r for r in embedded if not r.folded], lambda r: later_verdict(r, base))
    against = f"{base.variant}'s {fmt_s(base.later_median_s)} median"
    unknown = [v for _, v in later.get("cannot tell", [])]
    more = f"; run with --full-trials {FEWEST[RANK_SUM]} or more to tell" if too_few(unknown) else ""
    forms = {"larger": (f"Later runs longer than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "smaller": (f"Later runs shorter than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "same": (f"Once the first run is paid, later runs take about as long as {against}: ", "."),
             "cannot tell": (f"Later runs against {against}: ", f"{more}.")}
    return [judged(f"{forms[kind][0]}{_told(pairs, lambda r: fmt_s(r.later_median_s))}{forms[kind][1]}",
                   *(v for _, v in pairs)) for kind, pairs in later.items()]


def per_trial(row, name):
    """The field's value in each ok trial: one sample per fresh worker."""
    return tuple(v for v in (getattr(t, name) for t in row.trials if t.status == "ok") if v is not None)


@rests_on("build_s", "rss_bytes")
def _build(embedded, base, size):
    """How long building the embedded variants took against the base, and what it added to memory."""
    if not base.build_s:
        return []
    pairs = [(r, judge(per_trial(r, "build_s"), per_trial(base, "build_s"))) for r in embedded if r.build_s]
    if not pairs:
        return []
    built = [r for r, _ in pairs]
    # The Const tensors' bytes, counted in the GraphDef, are copies of X; RSS growth is only compared with them.
    matched = all(abs(build_growth(r, size) - copies_in_graph(r, size)) < 0.5 for r in built)
    copies = [copies_in_graph(r, size) for r in built]
    owner = "their GraphDefs'" if len(copies) > 1 else "the GraphDef's"
    held = f"{join(copies)} cop{'y' if copies == [1] else 'ies'} of X that {owner} Const tensors hold"
    grown = (f"; resident memory grew by {join(f'{build_growth(r, size):.1f}x' for r in built)} the bytes of X"
             + (f": about the size of the {held}" if matched else f", not the size of the {held}"))
    return [judged(f"Building against {base.variant}'s {fmt_s(base.build_s)}: "
                   f"{_told(pairs, lambda r: fmt_s(r.build_s))}{grown}.", *(v for _, v in pairs))]


@rests_on("peak_rss_bytes")
def _peaks(embedded, base, size):
    """Peak memory of the embedded variants against the base's, one peak per fresh worker a side."""
    peaks = [r for r in embedded if r.peak_rss_bytes and base.peak_rss_bytes]
    if not peaks:
        return []
    # Within half of X's bytes, or PEAK_SHARE of the process, a peak is what the allocator keeps or returns.
    slack = max(0.5 * size, PEAK_SHARE * base.peak_rss_bytes)
    pairs = [(r, judge(per_trial(r, "peak_rss_bytes"), per_trial(base, "peak_rss_bytes"),
                       margin=1 + slack / base.peak_rss_bytes)) for r in peaks]
    apart = [r for r, v in pairs if v.differs]
    grown = (f"; a difference of {_each(apart, lambda r: fmt_bytes(r.peak_rss_bytes - base.peak_rss_bytes))} "
             f"({_each(apart, lambda r: f'{(r.peak_rss_bytes - base.peak_rss_bytes) / size:+.1f}x')} the "
             f"{fmt_bytes(size)} of X)" if apart else "")
    slack_told = (f" (within half of X's bytes or {PEAK_SHARE:.0%} of the process, what the allocator keeps or "
                  f"returns)" if any(v.same for _, v in pairs) else "")
    return [judged(f"Peak memory against {base.variant}'s {fmt_bytes(base.peak_rss_bytes)}: "
                   f"{_told(pairs, lambda r: fmt_bytes(r.peak_rss_bytes))}{slack_told}{grown}.",
                   *(v for _, v in pairs))]


@rests_on("runs_s")
def _remedy(ok, base):
    """What loading X once bought against feeding it on every run; the loaded row needs its init_s as well."""
    loaded = next((r for r in ok if VARIANTS[r.variant].loaded_once and r.init_s is not None), None)
    if loaded is None or base is None or not VARIANTS[base.variant].fed_per_run:
        return []
    v = later_verdict(loaded, base)
    direction = "less, " if v.smaller else "more, " if v.larger else ""
    # The initializer is the session's first run: it pays what any first run pays, beside the bytes of X it loads.
    return [judged(f"{loaded.variant}'s init, the session's first run (the initializer, fed X), took "
                   f"{fmt_s(loaded.init_s)} once; its later runs need no feed and took {fmt_s(loaded.later_median_s)} "
                   f"median against {base.variant}'s {fmt_s(base.later_median_s)}: {direction}{verdict_text(v)}; its "
                   f"GraphDef is {loaded.graph_bytes:,} bytes.", v)]
