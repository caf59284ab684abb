"""compare's findings: one view of the results' rows (which variants hold X in their graph, which are fed it), the
measures and verdicts they share, memory in X's bytes, each finding a named function (headlines open the page)."""

import math
import statistics
from dataclasses import dataclass, replace

from tfgraphs.findings.evidence import FINDINGS, answer_then_findings, finding, has, judged
from tfgraphs.records.judge import CANNOT_TELL, fewest_a_side, judge, ratio
from tfgraphs.spec import network
from tfgraphs.spec.network import VARIANTS
from tfgraphs.spec.options import later_runs_option
from tfgraphs.spec.tflog import named
from tfgraphs.units import fmt_bytes, fmt_s, join

PHASES = ("data", "build", "session", "init", "first_run", "later_runs")
EMBEDDED_SHARE = 0.9   # a graph holding at least this share of X's bytes in Const tensors holds X
PEAK_SHARE = 0.05      # peaks within this share of the process (or half of X's bytes) are no difference


def data_bytes(results):
    """Bytes of X in this run."""
    return network.data_bytes(results.config.batch, results.config.dtype)


def each(rows, fn):
    """'x (a) and y (b)': one value per variant, for sentences that cover several variants at once."""
    return join(f"{fn(r)} ({r.variant})" for r in rows)


def growth_rows(results):
    """Per variant: resident-memory growth of each phase in units of X's bytes (growth / data bytes)."""
    size = data_bytes(results)
    out = []
    for r in results.rows:
        if not r.ok or not r.rss_bytes:
            continue
        row = {"variant": r.variant}
        previous = r.rss_bytes.get("start")
        for phase in PHASES:
            now = r.rss_bytes.get(phase)
            row[phase] = None if now is None or previous is None else (now - previous) / size
            previous = now if now is not None else previous
        row["peak"] = ratio(r.peak_rss_bytes, size)
        out.append(row)
    return out


def activations(row, results):
    """Bytes of the conv, pool and relu outputs: the row's own record, or from shapes for older documents."""
    if row.activation_bytes is not None:
        return row.activation_bytes
    return int(network.activation_bytes(results.config.batch, results.config.dtype))


def first_run_growth(row):
    """Resident-memory growth of the first run over the phase before it, or None."""
    rss = row.rss_bytes
    before = next((rss[p] for p in ("init", "session") if rss.get(p) is not None), None)
    return None if before is None or rss.get("first_run") is None else rss["first_run"] - before


def first_run_growth_sentences(ok, results):
    """The first run's memory growth per variant, with the network's outputs beside it for scale: computed from
    shapes, so never subtracted from a measured growth."""
    size = data_bytes(results)
    grew = [r for r in ok if first_run_growth(r) is not None]
    if not grew:
        return []
    act = activations(grew[0], results)
    return ["The first run's resident-memory growth, in units of X's bytes: "
            + each(grew, lambda r: f"{first_run_growth(r) / size:.2f}x")
            + f". For scale only, the conv, pool and relu outputs are {act / size:.2f}x X's bytes ({fmt_bytes(act)}), "
              f"computed from shapes and dtype, not measured: how much of the growth they are, and what else it "
              f"holds, is not measured."]


def build_growth(row, size):
    """Resident-memory growth of the build phase, in units of X's bytes."""
    return (row.rss_bytes.get("build", 0) - row.rss_bytes.get("data", 0)) / size


def regime_sentences(rows):
    """Which rows had their whole network replaced by a constant, from the partition graphs of an untimed run (rows
    that did not read them are left out)."""
    rows = [r for r in rows if has(r, ("partition_computes", "replaced_by_const"))]
    folded = [r for r in rows if not r.partition_computes["Conv2D"]]
    kept = [r for r in rows if r.partition_computes["Conv2D"]]
    out = []
    if folded:
        consts = sorted({n for r in folded for n in r.replaced_by_const})
        out.append(f"In {join(r.label for r in folded)}, constant folding replaced the network: the graph that ran "
                   f"after the first run holds no Conv2D"
                   + (f"; the Const {join(consts)}, made by folding, stands in its place" if consts else "")
                   + " (partition graphs). Later runs skip the network, so they are not compared with a graph "
                     "that computes it.")
    if kept:
        conv = named("Conv2D", {t for r in kept for t in r.partition_ops or ()})   # as the graph that ran names it
        out.append(f"In {join(r.label for r in kept)}, the graph that ran after the first run still holds {conv} "
                   f"(partition graphs): the network was not folded, and later runs compute it.")
    return out


@dataclass(frozen=True)
class View:
    """The ok rows, those holding X in their graph and those fed it, the fed-per-run base, and X's bytes."""

    results: object
    ok: tuple
    embedded: tuple
    fed: tuple
    base: object      # the first variant fed X on every run, or None
    against: object   # what embedded rows are measured against: base, or else the first fed row
    size: int
    whole: object = None   # the view before with_evidence() kept the rows with some evidence

    @classmethod
    def of(cls, results):
        """The results' view, partitioned once."""
        size = data_bytes(results)
        ok = tuple(r for r in results.rows if r.ok)
        embedded = tuple(r for r in ok if holds_data(r, results, size))
        fed = tuple(r for r in ok if not holds_data(r, results, size))
        base = next((r for r in fed if VARIANTS[r.variant].fed_per_run), None)
        # The answer asks for a variant fed per run; the findings compare with the first fed row when there is none
        # (a variable): two fallbacks kept, as the pages have always printed them.
        return cls(results, ok, embedded, fed, base, base or (fed[0] if fed else None), size)

    def with_evidence(self, names):
        """The view over the rows that hold every field in names; base and against are None when they lack one."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, ok=kept(self.ok), embedded=kept(self.embedded), fed=kept(self.fed),
                       base=self.base if self.base is not None and has(self.base, names) else None,
                       against=self.against if self.against is not None and has(self.against, names) else None,
                       results=replace(self.results, rows=kept(self.results.rows)), whole=self.whole or self)

    @property
    def paired(self):
        """True when an embedded row and a fed-per-run base are there to set side by side."""
        return bool(self.embedded) and self.base is not None


def holds_data(row, results, size=None):
    """True when the row's Const tensors hold (nearly) all of X."""
    return row.const_bytes is not None and row.const_bytes >= EMBEDDED_SHARE * (size or data_bytes(results))


def max_batch(row, results):
    """Largest batch whose GraphDef serializes under 2 GiB (X's bytes plus the measured rest); None if X is not in
    it."""
    if not holds_data(row, results):
        return None
    per_example = copies_in_graph(row, data_bytes(results)) * network.example_bytes(results.config.dtype)
    return network.largest_batch(per_example, overhead_bytes(row, results))


def max_tensor_batch(row, results):
    """Largest batch whose X, as one tensor, TensorFlow accepts at creation; None if X is not in the graph."""
    return network.max_tensor_batch(results.config.dtype) if holds_data(row, results) else None


def copies_in_graph(row, size):
    """How many whole copies of X (of `size` bytes) the row's Const tensors hold (measured, not assumed)."""
    return max(1, int(row.const_bytes // size))


def overhead_bytes(row, results):
    """GraphDef bytes besides the copies of X: the network's nodes, W and protobuf framing."""
    return row.graph_bytes - copies_in_graph(row, data_bytes(results)) * data_bytes(results)


def per_trial(row, name):
    """The field's value in each ok trial: one sample per fresh worker."""
    return tuple(v for v in (getattr(t, name) for t in row.trials if t.status == "ok") if v is not None)


def first_run_verdict(row, base):
    """row's first runs against the base's, one per fresh worker each: independent samples. A folded row's later
    runs compute nothing, so first runs are compared, not their excess over the later runs."""
    return judge(row.first_runs_s, base.first_runs_s)


def pooled_verdict(rows, base, name):
    """The field name's samples (later_medians_s: one median a worker) of every worker of rows against the base's."""
    return judge([s for r in rows for s in getattr(r, name)], getattr(base, name))


def too_few(verdicts):
    """True when no outcome of some verdict's test, at its n and level, could say "differs"."""
    return any(v.need for v in verdicts)



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


def values_judged(pairs, value):
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


def why_rows(results):
    """Per variant: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    view = View.of(results)
    return [{"variant": r.variant, "embedded_bytes": r.const_bytes, "graph_over_data": ratio(r.graph_bytes, view.size),
             "max_batch": max_batch(r, results), "max_tensor_batch": max_tensor_batch(r, results),
             "first_over_later": ratio(r.first_run_s, r.later_median_s), "folded": r.folded,
             "peak_over_data": ratio(r.peak_rss_bytes, view.size)} for r in view.ok]


def _span(values):
    """'29.1 ms' or '27.3-30.5 ms': one value, or the range of several."""
    low, high = fmt_s(min(values)), fmt_s(max(values))
    if low == high:
        return low
    return f"{low.split()[0]}-{high}" if low.split()[-1] == high.split()[-1] else f"{low} to {high}"


def _line(head, verdicts, more):
    """One answer line of at most 100 columns: the outcome all variants share, told by the weakest verdict (the
    largest p, or for "no difference" the interval reaching farthest); below the fewest samples only the outcome and
    what to run; mixed outcomes are named per variant, their intervals left to the findings."""
    if len({(v.outcome, v.larger) for v in verdicts.values()}) > 1:
        return judged(head + ", ".join(f"{name} {v.phrase()}" for name, v in verdicts.items()) + "; see the findings.",
                      *verdicts.values())
    weakest = max(verdicts.values(), key=_weakness)
    if too_few(verdicts.values()) and not weakest.differs:   # why it cannot is the findings' to say
        return judged(f"{head}cannot tell with {weakest.samples}; {more}.", *verdicts.values())
    return judged(f"{head}{weakest.brief()}.", *verdicts.values())


def _weakness(v):
    """How little a verdict rests on: its p, or for "no difference" how far its interval reaches from no effect."""
    if v.same:
        return max(abs(math.log(v.low)), abs(math.log(v.high))) if v.scale == "ratio" else max(-v.low, v.high)
    return 1.0 if v.p is None else v.p


def _computed(v):
    """The embedded rows whose later runs still computed the network."""
    return [r for r in v.embedded if not r.folded]


def _paired(v):
    """True when the whole view (before evidence was asked for) holds an embedded and a fed-per-run row."""
    return (v.whole or v).paired


def _folded(v):
    return [r for r in v.embedded if r.folded]


def loaded_row(v, runs=False):
    """The first ok row that loads X once into graph state and was initialised (with later runs, when runs)."""
    return next((r for r in v.ok if VARIANTS[r.variant].loaded_once and r.init_s is not None
                 and (r.runs_s or not runs)), None)


def session_samples(v):
    """(each worker's session time, each worker's first run) over the ok rows."""
    sessions = [s for r in v.ok for s in (per_trial(r, "session_s") or (r.session_s,)) if s is not None]
    firsts = [f for r in v.ok for f in (r.first_runs_s or (r.first_run_s,)) if f is not None]
    return sessions, firsts


AGAINST = ("first_runs_s", "runs_s")   # the evidence every comparison with the fed variant rests on


# compare's findings, in the order they are said: the headline ones are the answer block, the others the findings.
@finding("compare.no_result", headline=True, template="Answer: no variant produced a result.",
         unless="some variant produced a result")
def no_result(view):
    """No variant produced a result."""
    return [] if view.ok else ["Answer: no variant produced a result."]


@finding("compare.unpaired", headline=True,
         template="Answer: this run has no {variant holding X in its graph | variant fed per run} to compare against; "
                  "add it with --variants.",
         unless="the run has a variant holding X in its graph and one fed X on every run")
def unpaired(view):
    """The run lacks an embedded or a fed-per-run variant to set side by side."""
    if not view.ok or view.paired:
        return []
    missing = "variant fed per run" if view.embedded else "variant holding X in its graph"
    return [f"Answer: this run has no {missing} to compare against; add it with --variants."]


@finding("compare.first_and_later", ("first_run_s", "runs_s", "graph_bytes"), headline=True,
         template="Embedded X (graph up to {bytes}), medians: first run {time}, later runs {time}. / Fed ({variant}, "
                  "{bytes}-byte graph), medians: first run {time}, later runs {time}.",
         unless="the run lacks an embedded or a fed-per-run variant")
def first_and_later(view):
    """The embedded first runs against their own later runs, and the fed variant's first run."""
    if not (_paired(view) and view.paired):
        return []
    return [f"Embedded X (graph up to {fmt_bytes(max(r.graph_bytes for r in view.embedded))}), medians: first run "
            f"{_span([r.first_run_s for r in view.embedded])}, later runs "
            f"{_span([r.later_median_s for r in view.embedded])}.",
            f"Fed ({view.base.variant}, {view.base.graph_bytes:,}-byte graph), medians: first run "
            f"{fmt_s(view.base.first_run_s)}, later runs {fmt_s(view.base.later_median_s)}."]


@finding("compare.first_run_verdict", ("first_runs_s",), headline=True,
         template="First run, embedded vs fed: {the judge's verdict on the first runs of fresh workers}.",
         unless="the run lacks an embedded or a fed-per-run variant")
def first_run_line(view):
    """The judge's verdict on the embedded first runs against the fed one's."""
    if not (_paired(view) and view.paired):
        return []
    pooled = pooled_verdict(view.embedded, view.base, "first_runs_s")
    return [_line("First run, embedded vs fed: ", {"embedded": pooled}, f"--trials {fewest_a_side([pooled])}")]


@finding("compare.folded", ("folded",), headline=True,
         template="Later runs of {variants}: no Conv2D ran, folded from the graph's X (new data needs a feed).",
         unless="no embedded variant's later runs were folded (Conv2D ran in an untimed run after the timed ones)")
def folded(view):
    """The embedded variants whose later runs were folded."""
    if not (_paired(view) and _folded(view)):
        return []
    return [f"Later runs of {join(r.variant for r in _folded(view))}: no Conv2D ran, folded from the graph's X (new "
            f"data needs a feed)."]


@finding("compare.later_verdict", ("runs_s",), headline=True,
         template="Later runs vs fed: {the judge's verdict on the later runs' medians, one a worker}.",
         unless="the run lacks an embedded or a fed-per-run variant, or an embedded variant's later runs were folded "
                "(the answer says that instead)")
def later_line(view):
    """The judge's verdict on the embedded later runs that computed the network against the fed one's."""
    if not (_paired(view) and not _folded(view.whole) and view.base is not None and _computed(view)):
        return []
    pooled = pooled_verdict(_computed(view), view.base, "later_medians_s")
    option = f"{later_runs_option(view.results.config)} {fewest_a_side([pooled])}"
    return [_line("Later runs vs fed: ", {"embedded": pooled}, option)]


@finding("compare.remedy", ("runs_s", "graph_bytes"), headline=True,
         template="Remedy, medians: a {fed variant} {time} a run; a {variable} loaded once {time} init, {time} a run, "
                  "where one ran.",
         unless="the run lacks an embedded or a fed-per-run variant")
def remedy(view):
    """What keeps X out of the graph: the fed variant, and the variable loaded once with its init."""
    if not (_paired(view) and view.base is not None):
        return []
    loaded = loaded_row(view, runs=True)
    head = f"Remedy, medians: a {view.base.variant} {fmt_s(view.base.later_median_s)} a run"
    if loaded is None:
        return [head + "."]
    return [head + f"; a {loaded.variant} loaded once {fmt_s(loaded.init_s)} init, "
                   f"{fmt_s(statistics.median(loaded.runs_s))} a run."]


@finding("compare.nothing", template="No variant produced a result, so there is nothing to explain.",
         unless="some variant produced a result")
def nothing(view):
    """No variant produced a result to explain."""
    return [] if view.ok else ["No variant produced a result, so there is nothing to explain."]


@finding("compare.embedded_graphs", ("graph_bytes",),
         template="The {variants} GraphDef(s) is/are up to {bytes}, {ratio}x the {bytes} of X: the data is stored in "
                  "the graph.", unless="no variant's Const tensors hold 90% of X's bytes")
def embedded_graphs(view):
    """How large the GraphDefs holding X are, against X's bytes."""
    if not view.embedded:
        return []
    biggest = max(r.graph_bytes for r in view.embedded)
    many = len(view.embedded) > 1
    return [f"The {join(r.variant for r in view.embedded)} GraphDef{'s are' if many else ' is'} up to "
            f"{fmt_bytes(biggest)}, {biggest / view.size:.2f}x the {fmt_bytes(view.size)} of X: the data is stored in "
            f"the graph."]


@finding("compare.fed_graphs", ("graph_bytes",),
         template="The {variants} GraphDef(s) is/are at most {bytes} bytes: X is not in it/them (`tfgraphs sweep` "
                  "measures size against batch).", unless="every variant holds X in its graph")
def fed_graphs(view):
    """How small the GraphDefs of the fed variants are: X is not in them."""
    if not view.fed:
        return []
    small, many = max(r.graph_bytes for r in view.fed), len(view.fed) > 1
    return [f"The {join(r.variant for r in view.fed)} GraphDef{'s are' if many else ' is'} at most {small:,} bytes: "
            f"X is not in {'them' if many else 'it'} (`tfgraphs sweep` measures size against batch)."]


@finding("compare.regime", ("partition_computes", "replaced_by_const"),
         template="In {variants}, constant folding replaced the network: ... / In {variants}, the graph that ran "
                  "after the first run still holds Conv2D (partition graphs): the network was not folded, and later "
                  "runs compute it.",
         unless="no embedded variant's graph that ran was read (partition graphs of an untimed run)")
def regime(view):
    """Which embedded variants had their whole network replaced by a constant."""
    return regime_sentences(list(view.embedded)) if view.embedded else []


@finding("compare.build", (*AGAINST, "build_s", "rss_bytes"),
         template="Building against {variant}'s {time}: {variant} {time}, {verdict}; resident memory grew by {ratio}x "
                  "the bytes of X: about / not the size of the {n} copies of X that the GraphDef's Const tensors hold.",
         unless="no embedded variant and no fed variant to build against, or a build time is missing")
def build(view):
    """How long building the embedded variants took against the base, and what it added to memory."""
    base, size = view.against, view.size
    if base is None or not base.build_s or not any(r.build_s for r in view.embedded):
        return []
    pairs = [(r, judge(per_trial(r, "build_s"), per_trial(base, "build_s"))) for r in view.embedded if r.build_s]
    built = [r for r, _ in pairs]
    # The Const tensors' bytes, counted in the GraphDef, are copies of X; RSS growth is only compared with them.
    matched = all(abs(build_growth(r, size) - copies_in_graph(r, size)) < 0.5 for r in built)
    copies = [copies_in_graph(r, size) for r in built]
    owner = "their GraphDefs'" if len(copies) > 1 else "the GraphDef's"
    held = f"{join(copies)} cop{'y' if copies == [1] else 'ies'} of X that {owner} Const tensors hold"
    grown = (f"; resident memory grew by {join(f'{build_growth(r, size):.1f}x' for r in built)} the bytes of X"
             + (f": about the size of the {held}" if matched else f", not the size of the {held}"))
    return [judged(f"Building against {base.variant}'s {fmt_s(base.build_s)}: "
                   f"{values_judged(pairs, lambda r: fmt_s(r.build_s))}{grown}.", *(verdict for _, verdict in pairs))]


@finding("compare.first_run", AGAINST,
         template="First run longer than / shorter than / about as long as / against {variant}'s {time}: {variant} "
                  "{time}, {verdict} (one sentence per outcome).",
         unless="no embedded variant, or no fed variant to compare with")
def first_run(view):
    """The embedded first runs against the base's, one sentence per outcome."""
    base = view.against
    if base is None or not view.embedded:
        return []
    firsts = by_outcome(view.embedded, lambda r: first_run_verdict(r, base))
    against = f"{base.variant}'s {fmt_s(base.first_run_s)}"
    # A first/later ratio of a folded row spans a regime change: its later runs skip the network.
    computed = [r for r, _ in firsts.get("larger", []) if not r.folded]
    ratios = (f"First run over median later run: {each(computed, lambda r: f'{r.first_run_s / r.later_median_s:.1f}x')}"
              f", against {base.first_run_s / base.later_median_s:.1f}x for {base.variant}. " if computed else "")
    unknown = [verdict for _, verdict in firsts.get("cannot tell", [])]
    more = f"; run with --trials {fewest_a_side(unknown)} or more to tell" if too_few(unknown) else ""
    forms = {"larger": (f"{ratios}First run longer than {against}, paid once before the first result: ",
                        "; `tfgraphs explain` shows what it is spent on."),
             "smaller": (f"First run shorter than {against}: ", "."),
             "same": (f"First run about as long as {against}: ", "."),
             "cannot tell": (f"First run against {against}: ", f"{more}.")}
    return [judged(f"{forms[kind][0]}{values_judged(pairs, lambda r: fmt_s(r.first_run_s))}{forms[kind][1]}",
                   *(verdict for _, verdict in pairs)) for kind, pairs in firsts.items()]


@finding("compare.later_runs", AGAINST,
         template="Later runs longer than / shorter than / about as long as / against {variant}'s {time} median: "
                  "{variant} {time}, {verdict}.",
         unless="no embedded variant that still computes the network, or no fed variant to compare with")
def later_runs(view):
    """Later runs of the embedded variants that still compute the network, against the base's."""
    base = view.against
    if base is None or not _computed(view):
        return []
    later = by_outcome(_computed(view), lambda r: pooled_verdict((r,), base, "later_medians_s"))
    against = f"{base.variant}'s {fmt_s(base.later_median_s)} median"
    unknown = [verdict for _, verdict in later.get("cannot tell", [])]
    more = (f"; run with {later_runs_option(view.results.config)} {fewest_a_side(unknown)} or more to tell"
            if too_few(unknown) else "")
    forms = {"larger": (f"Later runs longer than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "smaller": (f"Later runs shorter than {against}: ", "; `tfgraphs explain` traces which ops still run."),
             "same": (f"Once the first run is paid, later runs take about as long as {against}: ", "."),
             "cannot tell": (f"Later runs against {against}: ", f"{more}.")}
    return [judged(f"{forms[kind][0]}{values_judged(pairs, lambda r: fmt_s(r.later_median_s))}{forms[kind][1]}",
                   *(verdict for _, verdict in pairs)) for kind, pairs in later.items()]


@finding("compare.peaks", (*AGAINST, "peak_rss_bytes"),
         template="Peak memory against {variant}'s {bytes}: {variant} {bytes}, {verdict}; a difference of {bytes} "
                  "({ratio}x the {bytes} of X), where they differ.",
         unless="no embedded variant that still computes the network, no fed variant, or no peak measured")
def peaks(view):
    """Peak memory of the embedded variants that compute the network against the base's, one peak per fresh worker
    a side."""
    base, size = view.against, view.size
    if base is None or not base.peak_rss_bytes or not any(r.peak_rss_bytes for r in _computed(view)):
        return []
    rows = [r for r in view.embedded if not r.folded and r.peak_rss_bytes]
    # Within half of X's bytes, or PEAK_SHARE of the process, a peak is what the allocator keeps or returns.
    slack = max(0.5 * size, PEAK_SHARE * base.peak_rss_bytes)
    pairs = [(r, judge(per_trial(r, "peak_rss_bytes"), per_trial(base, "peak_rss_bytes"),
                       margin=1 + slack / base.peak_rss_bytes)) for r in rows]
    apart = [r for r, verdict in pairs if verdict.differs]
    grown = (f"; a difference of {each(apart, lambda r: fmt_bytes(r.peak_rss_bytes - base.peak_rss_bytes))} "
             f"({each(apart, lambda r: f'{(r.peak_rss_bytes - base.peak_rss_bytes) / size:+.1f}x')} the "
             f"{fmt_bytes(size)} of X)" if apart else "")
    slack_note = (f" (within half of X's bytes or {PEAK_SHARE:.0%} of the process, what the allocator keeps or "
                  f"returns)" if any(verdict.same for _, verdict in pairs) else "")
    return [judged(f"Peak memory against {base.variant}'s {fmt_bytes(base.peak_rss_bytes)}: "
                   f"{values_judged(pairs, lambda r: fmt_bytes(r.peak_rss_bytes))}{slack_note}{grown}.",
                   *(verdict for _, verdict in pairs))]


@finding("compare.loaded_once", ("runs_s", "graph_bytes"),
         template="{variable}'s init, the session's first run (the initializer, fed X), took {time} (the median of "
                  "{n} workers) once a session; its later "
                  "runs need no feed and took {time} median against {fed variant}'s {time}: {verdict}; its GraphDef "
                  "is {bytes} bytes.",
         unless="the run has no variable loaded once with its init timed, or no variant fed per run")
def loaded_once(view):
    """What loading X once bought against feeding it on every run."""
    loaded, base = loaded_row(view), view.base
    if base is None or loaded is None:
        return []
    verdict = pooled_verdict((loaded,), base, "later_medians_s")
    direction = "less, " if verdict.smaller else "more, " if verdict.larger else ""
    # The initializer is the session's first run: it pays what any first run pays, beside the bytes of X it loads.
    timed = sum(t.init_s is not None for t in loaded.trials)   # the row's init is the median of these
    return [judged(f"{loaded.variant}'s init, the session's first run (the initializer, fed X), took "
                   f"{fmt_s(loaded.init_s)}{f' (the median of {timed} workers)' if timed > 1 else ''} once a session; "
                   f"its later runs need no feed and took "
                   f"{fmt_s(loaded.later_median_s)} "
                   f"median against {base.variant}'s {fmt_s(base.later_median_s)}: {direction}"
                   f"{verdict_text(verdict)}; its GraphDef is {loaded.graph_bytes:,} bytes.", verdict)]


@finding("compare.session", ("session_s", "first_run_s"),
         template="Creating the session took at most {time} in every worker, under 5% of the shortest first run of "
                  "any worker ({time}): the time is not spent there.",
         unless="some worker's session took 5% of the shortest first run or more")
def session(view):
    """Every worker's session against every worker's first run, so "at most" holds of each sample, not of a
    median."""
    sessions, firsts = session_samples(view)
    if not (sessions and firsts) or max(sessions) >= 0.05 * min(firsts):
        return []
    return [f"Creating the session took at most {fmt_s(max(sessions))} in every worker, under 5% of the shortest "
            f"first run of any worker ({fmt_s(min(firsts))}): the time is not spent there."]


@finding("compare.ready", ("first_run_s",),
         template="Time to the first result (build + session + init + first run): {variant} {time}, ...",
         unless="no variant produced a result")
def ready(view):
    """Build, session, init and first run added up per variant."""
    if not view.ok:
        return []
    times = [(r.variant, (r.build_s or 0) + (r.session_s or 0) + (r.init_s or 0) + r.first_run_s) for r in view.ok]
    return ["Time to the first result (build + session + init + first run): "
            + ", ".join(f"{name} {fmt_s(t)}" for name, t in times) + "."]


@finding("compare.limits", ("const_bytes", "graph_bytes"),
         template="In {dtype} each example adds {bytes} bytes to {variant}'s graph, and the rest (X's node less its "
                  "data, the other nodes) takes {bytes}; up to batch {n}, {ratio}x this run's batch, under 2 GiB ...",
         unless="no variant's Const tensors hold 90% of X's bytes")
def limits(view):
    """Per number of copies of X in the graph: the batch each 2 GiB limit allows."""
    results, out, seen = view.results, [], set()
    dtype = results.config.dtype
    for r in view.embedded:
        copies = copies_in_graph(r, view.size)
        if copies in seen:
            continue
        seen.add(copies)
        limit, tensor, rest = max_batch(r, results), max_tensor_batch(r, results), overhead_bytes(r, results)
        held = f", held {copies} times" if copies > 1 else ""
        out.append(f"In {dtype} each example adds {copies * network.example_bytes(dtype):,} bytes to {r.variant}'s "
                   f"graph{held}, and the rest (X's node less its data, the other nodes, the GraphDef's versions) takes {rest:,}; up to batch "
                   f"{limit:,}, {limit / results.config.batch:.1f}x this run's batch, it stays under the "
                   f"{network.GRAPHDEF}. " + (f"The {network.TENSOR}, falls on the same batch." if tensor == limit else
                      f"Each copy of X is one tensor and stays under the {network.TENSOR}, up to batch {tensor:,}."))
    return out


@finding("compare.first_run_growth", ("rss_bytes",),
         template="The first run's resident-memory growth, in units of X's bytes: {ratio}x ({variant}). For scale "
                  "only, the conv, pool and relu outputs are {ratio}x X's bytes ({bytes}), computed from shapes and "
                  "dtype, ...", unless="no worker measured its resident memory before and after the first run")
def first_run_memory(view):
    """The first run's memory growth per variant, with the network's outputs beside it for scale."""
    return first_run_growth_sentences(list(view.ok), view.results)


def answer_and_findings(results):
    """(the answer, the findings): every compare finding said over one view of the results, split by headline."""
    return answer_then_findings(FINDINGS["compare"], lambda: View.of(results))
