"""explain's findings: where the first run's time went, from the ablation's presets judged against each other,
TensorFlow's log of the first run, the graph that ran and the traces, each finding a named function said over one
view of the results' rows; the headline ones open the page."""

import statistics
from dataclasses import dataclass, replace

from tfgraphs.findings import remote
from tfgraphs.findings.evidence import FINDINGS, answer_then_findings, finding, has, judged, more_trials, sentences_of
from tfgraphs.records.explain import (FROM_PRESETS, LABELS, NEEDED, PARTS, excesses_judged, is_remote,
                                      part_first_runs, placed, where)
from tfgraphs.spec import tflog
from tfgraphs.spec.network import VARIANTS
from tfgraphs.spec.tflog import NETWORK_OPS, named, runs_as
from tfgraphs.units import fmt_s, join

SHOWN = 5          # answer lines at most; the findings say the rest
SHOWN_STAGES = 3   # stages named per row in a sentence, longest first
AGAINST = ("first_runs_s", "runs_s")   # the evidence every judged first-run excess rests on
LOG = ("first_run_log", "logged_first_run_s")


@dataclass(frozen=True)
class View:
    """The rows, those of the built-in network, the in-process default-config rows, and the results' other sections."""

    results: object
    rows: tuple
    seed_rows: tuple   # the Conv2D facts are about the built-in network; a user's graph gets its slowest ops instead
    defaults: tuple
    whole: object = None

    @classmethod
    def of(cls, results):
        rows = tuple(results.rows)
        return cls(results, rows, tuple(r for r in rows if r.variant in VARIANTS),
                   tuple(r for r in rows if r.preset == "default" and not r.remote))

    def with_evidence(self, names):
        """The view over the rows that hold every field in names."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, rows=kept(self.rows), seed_rows=kept(self.seed_rows), defaults=kept(self.defaults),
                       whole=self.whole or self)

    @property
    def attributions(self):
        return list(self.results.attribution)


# What TensorFlow reported of the first run: its log's stages, its optimizers' passes, the graph that ran, the
# kernels traced.
def logged_spans(row):
    """The stages of the row's logged first run (spec.tflog.spans of its log), or [] for a log not marked at both
    ends of the run (documents older than the marks)."""
    log = row.first_run_log
    return tflog.spans(log, row.bytes_fed_per_run) if log and row.logged_first_run_s and tflog.marked(log) else []


def _share(seconds, row):
    return f"{100 * seconds / row.logged_first_run_s:.0f}%"


def where_it_went(rows):
    """Per default-config row: the share of the logged first run between TensorFlow's own first and last bounding
    lines, and the longest stages, each named for the code between its two lines."""
    out = []
    for r in rows:
        spans = logged_spans(r) if r.preset == "default" else []
        if not spans:
            continue
        own = sum(s["seconds"] for s in spans if s["own"])
        longest = sorted(spans, key=lambda s: -s["seconds"])[:SHOWN_STAGES]
        out.append(f"{row_name(r)}: TensorFlow's own lines, from its first to its last, bound {_share(own, r)} of "
                   f"the logged first run's {fmt_s(r.logged_first_run_s)}; its longest stages: "
                   + join(f"{s['stage']} {fmt_s(s['seconds'])} ({_share(s['seconds'], r)}; {s['source']} to "
                          f"{s['to']})" for s in longest) + ".")
    return out


def network_ran_twice(rows):
    """Rows whose executor logged the network's ops both in the classic folder's run (step -1) and in the run."""
    out = []
    for r in rows:
        spans = {s["stage"]: s for s in logged_spans(r)}
        ran = [s for name, s in spans.items() if name.startswith("the run (step")]
        if r.preset != "default" or tflog.FOLDER_RUN not in spans or not ran or not r.partition_computes["Conv2D"]:
            continue
        folder = tflog.processed(r.first_run_log, -1)
        ops = [op for op in NETWORK_OPS if any(runs_as(t, op) for t in folder)]
        if "Conv2D" not in ops:
            continue
        out.append(f"{row_name(r)}: the network ran twice in its first run. The executor logged {join(ops)} in the "
                   f"classic folder's run of the constant graph ({fmt_s(spans[tflog.FOLDER_RUN]['seconds'])} from "
                   f"its first node's line to its last), and the graph that ran still holds Conv2D (partition "
                   f"graphs), so they ran again in {ran[0]['stage']} ({fmt_s(ran[0]['seconds'])}) (executor.cc, "
                   f"step -1 being LogMemory::CONSTANT_FOLDING_STEP_ID).")
    return out


def optimized_again(rows):
    """Rows whose first run, after the initializer's run in the same session, logged BuildGraph and the folder again."""
    out = []
    for r in rows:
        kinds = {kind for kind, _, _ in tflog.events(r.first_run_log)} if logged_spans(r) else set()
        if r.preset != "default" or r.init_s is None or "buildgraph" not in kinds:
            continue
        again = [tflog.LINES[k] for k in ("buildgraph", "partitioned", "searched") if k in kinds]
        out.append(f"{row_name(r)}: its first run came after the initializer's run in the same session, and "
                   f"TensorFlow logged {join(again)} again: a run with other fetches gets executors of its own, "
                   f"optimized anew.")
    return out


def first_run_inside(rows):
    """Where each default-config first run went, pass by pass, as TensorFlow's own log timed it."""
    out = []
    for r in rows:
        # Nothing understood in the log: the page says so once, in place of the table.
        if r.preset != "default" or not r.first_run_inside:
            continue
        passes = [s for s in r.first_run_inside if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        line = f"{row_name(r)}: "
        if passes:
            spent = sum(s["seconds"] for s in passes)
            by = grouped(passes)
            top = ", ".join(f"{stage.split('/', 1)[1]} {fmt_s(t)}" for stage, t in by[:3])
            fold = [s for s in passes if s["stage"] == "grappler/constant_folding"]
            removed = sum(-s["nodes_change"] for s in fold)
            folding = ("" if not fold else
                       "; its constant_folding passes left the node count unchanged" if removed == 0
                       else f"; its constant_folding passes changed the node count by {-removed:+d}")
            line += (f"TensorFlow logged {len(passes)} Grappler passes taking {fmt_s(spent)} of the logged first "
                     f"run's {fmt_s(r.logged_first_run_s)} ({100 * spent / r.logged_first_run_s:.0f}%); the largest: "
                     f"{top}{folding}.")
        else:
            line += "TensorFlow logged no Grappler pass in this first run."
        found = classic_on_graph_that_ran(r)
        replaced = [s["replaced"] for s in r.first_run_inside if "replaced" in s]
        if replaced:
            line += f" The classic folder logged that it replaced {join(replaced)} by a constant."
        elif found:
            line += (f" The classic folder logged \"Constant foldable {found['foldable']} : {found['nodes']}\" "
                     f"({found['source']}) and no replacement.")
        out.append(line)
    return out


def classic_on_graph_that_ran(row):
    """The classic folder's log line about the graph that ran, or None: several graphs are folded in one run (a
    dataset's own, say), and the line's node count, _SOURCE and _SINK included, tells which one it was."""
    if not row.first_run_inside or not row.partition_ops:
        return None
    nodes = sum(row.partition_ops.values()) + 2
    return next((s for s in row.first_run_inside
                 if s["stage"] == "classic/constant_folding" and s.get("nodes") == nodes), None)


def grouped(passes):
    """[(stage, seconds)] summed over rounds, largest first."""
    by = {}
    for s in passes:
        by[s["stage"]] = by.get(s["stage"], 0.0) + s["seconds"]
    return sorted(by.items(), key=lambda kv: -kv[1])


def folding_evidence(rows):
    """Per default-config row: what the graph that ran holds, and what the classic folder's log said of it."""
    out = []
    for r in rows:
        if r.preset != "default":
            continue
        if not r.partition_computes["Conv2D"]:
            out.append(f"{row_name(r)}: folded. The graph that ran holds no Conv2D"
                       + (f"; the Const {join(r.replaced_by_const)}, made by folding, stands in its place"
                          if r.replaced_by_const else "")
                       + " (partition graphs).")
            continue
        found = classic_on_graph_that_ran(r)
        conv = named("Conv2D", r.partition_ops)   # as the graph that ran names it: oneDNN renames it in float32
        stateful = list(r.partition_stateful or ())
        if stateful:
            out.append(f"{row_name(r)}: not folded. The graph that ran still holds {conv}, fed by stateful ops "
                       f"({join(stateful)}, as TensorFlow's op registry marks them), which no constant folder "
                       f"evaluates (partition graphs).")
        elif found and found["foldable"] and not r.replaced_by_const:
            # common_runtime/constant_folding.cc, with no shape map (DirectSession's case), evaluates the foldable
            # subgraph first and only then skips the results over max_constant_size_in_bytes.
            out.append(f"{row_name(r)}: not folded. The classic folder logged \"Constant foldable "
                       f"{found['foldable']} : "
                       f"{found['nodes']}\" ({found['source']}; node ids of the constant graph it built : of the "
                       f"graph that ran) and no replacement, and that graph still holds {conv} (partition graphs): "
                       f"the folder evaluated the network and did not keep the result, as its source does with a "
                       f"result over its size limit.")
        elif r.partition_ops.get("_Arg"):
            out.append(f"{row_name(r)}: not folded. The graph that ran receives its inputs as "
                       f"{r.partition_ops['_Arg']} fed _Arg node{'s' if r.partition_ops['_Arg'] > 1 else ''} and "
                       f"still holds {conv} (partition graphs): Conv2D needs the values fed for X, so it cannot be "
                       f"folded.")
        else:
            out.append(f"{row_name(r)}: not folded. The graph that ran still holds {conv} and folding made no Const "
                       f"(partition graphs).")
    return out


def ran_in_later(row, op_type):
    """True/False whether a kernel computing op_type (oneDNN's names too) ran in the second traced run."""
    return any(runs_as(op["type"], op_type) and op["later_ms"] is not None for op in row.top_ops)


def trace_facts(rows):
    """Whether a kernel computing Conv2D ran in the traced later run, per variant and preset (step stats)."""
    out = []
    kept = [r for r in rows if ran_in_later(r, "Conv2D")]
    if kept:
        out.append("Conv2D ran in the traced later run of " + ", ".join(
            row_name(r) + ("" if _kernel(r, "Conv2D") == "Conv2D" else f" (as {_kernel(r, 'Conv2D')})")
            for r in kept) + " (step stats).")
    gone = [r for r in rows if not ran_in_later(r, "Conv2D")]
    if gone:
        out.append("No kernel computing Conv2D ran in the traced later run of " + ", ".join(row_name(r) for r in gone)
                   + " (step stats).")
    return out


def _kernel(row, op_type):
    """The kernel type that computed op_type in the later traced run, as step stats name it."""
    return next(op["type"] for op in row.top_ops if runs_as(op["type"], op_type) and op["later_ms"] is not None)


def row_name(row):
    """variant [preset], and remote when it ran on a target."""
    return f"{row.variant} [{row.preset}]" + (" remote" if row.remote else "")


def share_text(part, total, verdict):
    """part as a % of total; None without a verdict, when its first runs are too few to bound the verdict's interval,
    or when total is not positive."""
    # A share of an excess that is not positive is no share of what the first run paid.
    if part is None or total is None or total <= 0 or verdict is None or not verdict.bounded:
        return None
    # No interval is given for the share: the verdict's is of the part (a shift in seconds), and dividing it by the
    # median excess, itself a sample, would not be an interval for the share. The verdict prints the part's own.
    return f"{part / total:.0%}"


def _pair(part):
    """'default against no-grappler': the two presets a part is the difference of."""
    return " against ".join(FROM_PRESETS[part])


# no-grappler switches all of Grappler off and no-folding its constant folding among others: both parts hold it.
OVERLAP = (f"The Grappler and constant folding parts overlap by design: Grappler's constant folding is off in both "
           f"{FROM_PRESETS['grappler_s'][1]} and {FROM_PRESETS['folding_s'][1]}, so both parts hold it.")
SAVED = {"grappler_s": "Grappler off saved", "folding_s": "folding+CSE off saved", "rest_s": "the rest",
         "interaction_s": "interaction"}


def bare_presets(a, rows):
    """The attribution's default and bare rows, when both are ok, else None."""
    by = {r.preset: r for r in placed(rows, a["variant"], is_remote(a, rows)) if r.ok}
    return (by["default"], by["bare"]) if "default" in by and "bare" in by else None


def logged_parts(rows):
    """Where each default-config logged first run went, in one line: its longest stages by TensorFlow's log lines
    (three for the first variant, one for the others), else its Grappler passes' share."""
    each = []
    for r in rows:
        spans = sorted(logged_spans(r), key=lambda s: -s["seconds"])[:1 if each else 3]
        passes = [s for s in r.first_run_inside or ()
                  if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        if spans:
            each.append(f"{r.variant} {fmt_s(r.logged_first_run_s)}: "
                        + ", ".join(f"{s['stage']} {100 * s['seconds'] / r.logged_first_run_s:.0f}%" for s in spans))
        elif passes:
            spent = sum(s["seconds"] for s in passes)
            each.append(f"{r.variant} {fmt_s(r.logged_first_run_s)}: Grappler's passes {fmt_s(spent)} "
                        f"({100 * spent / r.logged_first_run_s:.0f}%)")
    return each


def _under(rows, preset):
    return [r for r in rows if r.preset == preset]


def _attributed(view, a):
    """True when the attribution has an excess and rows in its place."""
    return a["excess_s"] is not None and bool(placed(view.rows, a["variant"], is_remote(a, view.rows)))


def _default_with(rows, test):
    return any(r.preset == "default" and test(r) for r in rows)


def first_two(view):
    """The first two attributions: the answer's."""
    return view.attributions[:2]


def every_attribution(view):
    """Every variant's attribution of its first-run excess."""
    return view.attributions


@finding("explain.excess", AGAINST, headline=True, per=first_two,
         template="{variant}: the first run paid {time} more than later runs; the largest part told apart: {part} "
                  "{time} ({share}; {verdict}) / no part of it told apart: {verdicts}.",
         unless="the variant has no first-run excess (no later runs) or no rows")
def excess(view, a):
    """One variant's first-run excess, and its parts: the largest the judge tells apart, or each part's verdict."""
    rows = list(view.rows)
    if not _attributed(view, a):
        return []
    remote_row = is_remote(a, rows)
    line = f"{where(a['variant'], remote_row)}: the first run paid {fmt_s(a['excess_s'])} more than later runs"
    if a["grappler_s"] is None:
        return [line + "."]
    verdicts = {k: part_first_runs(rows, a["variant"], k, a["excess_s"], remote_row) for k in FROM_PRESETS}
    verdicts = {k: v for k, v in verdicts.items() if v is not None}
    differ = [k for k, v in verdicts.items() if v.differs]
    if not differ:
        # The parts are in the table; the answer says only that the judge told none of them apart, and why.
        briefs = {k: v.brief(fmt_s) for k, v in verdicts.items()}
        alike = {(v.outcome, v.samples, v.confidence) for v in verdicts.values()}
        if len(alike) == 1 and not any(v.bounded for v in verdicts.values()):
            (outcome, samples, confidence), = alike   # no part bounded: one phrase, the Holm p's in the findings
            parts = f"each {outcome} with {samples} (no {confidence})"
        else:
            parts = (briefs.popitem()[1] if len(set(briefs.values())) == 1 else
                     "; ".join(f"{SAVED[k]} {b}" for k, b in briefs.items()))
        return [judged(line + f"; no part of it told apart: {parts}" + more_trials(*verdicts.values()) + ".",
                       *verdicts.values())]
    k = max(differ, key=lambda p: abs(a[p]))
    share = share_text(a[k], a["excess_s"], verdicts[k])
    # Both parts were judged to pick the largest: both belong to the answer's family.
    return [judged(line + f"; the largest part told apart: {SAVED[k]} {fmt_s(a[k])} ("
                   + (f"{share}; " if share else "") + f"{verdicts[k].brief(fmt_s)}).", *verdicts.values())]


@finding("explain.bare_excess", AGAINST, headline=True, per=first_two,
         template="{variant}, every optimizer off (bare): the excess was {time} against {time} by default, {verdict}.",
         unless="the run has the presets that split the excess, or lacks the default or the bare one")
def bare_excess(view, a):
    """With every optimizer off: the bare preset's first-run excess against the default's, judged across workers."""
    rows = list(view.rows)
    if not _attributed(view, a) or a["grappler_s"] is not None or bare_presets(a, rows) is None:
        return []
    default, bare = bare_presets(a, rows)
    name = where(a["variant"], is_remote(a, rows))
    verdict = excesses_judged(bare, default, default.first_run_excess_s)
    return [judged(f"{name}, every optimizer off (bare): the excess was {fmt_s(bare.first_run_excess_s)} against "
                   f"{fmt_s(default.first_run_excess_s)} by default, {verdict.brief(fmt_s)}{more_trials(verdict)}.",
                   verdict)]


@finding("explain.logged", LOG, headline=True,
         template="Where each logged first run went, by TensorFlow's own log: {variant} {time}: {stage} {share}, ...",
         unless="TensorFlow's log of the default-config first runs names no stage and no Grappler pass")
def logged(view):
    """The logged first runs' stages in one answer line."""
    parts = logged_parts(list(view.defaults))
    return [f"Where each logged first run went, by TensorFlow's own log: {'; '.join(parts[:3])}."] if parts else []


@finding("explain.folded", ("partition_computes",), headline=True,
         template="Folded by default: the graph that ran holds no Conv2D in {variants} (partition graphs).",
         unless="every default-config graph that ran still holds Conv2D, or none was read")
def folded(view):
    """The default-config variants whose graph that ran holds no Conv2D: folded before the first result."""
    variants = [r.variant for r in view.defaults if not r.partition_computes["Conv2D"]]
    if not variants:
        return []
    return [f"Folded by default: the graph that ran holds no Conv2D in {join(variants)} (partition graphs)."]


ANSWER = (excess.finding, bare_excess.finding, logged.finding, folded.finding)


@finding("explain.nothing", headline=True, template="No variant produced a first run to explain.",
         unless="any other answer line is said")
def nothing(view):
    """No answer line is said: there is no first run to explain."""
    return [] if sentences_of(ANSWER, view.whole or view) else ["No variant produced a first run to explain."]


@finding("explain.where_it_went", LOG,
         template="{variant} [default]: TensorFlow's own lines, from its first to its last, bound {share} of the "
                  "logged first run's {time}; its longest stages: {stage} {time} ({share}; {line} to {line}), ...",
         unless="no default-config first run's log is marked at both ends")
def stages_spanned(view):
    """Per default-config row: the share of the logged first run TensorFlow's own lines bound, the longest stages."""
    return where_it_went(list(view.rows)) if _default_with(view.rows, logged_spans) else []


@finding("explain.ran_twice", ("first_run_log", "partition_computes"),
         template="{variant} [default]: the network ran twice in its first run. The executor logged {ops} in the "
                  "classic folder's run of the constant graph ...",
         unless="the executor did not log Conv2D in the classic folder's run, or the graph that ran holds no Conv2D")
def ran_twice(view):
    """Rows whose executor logged the network's ops both in the classic folder's run and in the run."""
    if not _default_with(view.seed_rows, lambda r: r.partition_computes["Conv2D"]):
        return []
    return network_ran_twice(list(view.seed_rows))


@finding("explain.folding", ("partition_computes", "replaced_by_const"),
         template="{variant} [default]: folded. The graph that ran holds no Conv2D ... / not folded. The graph that "
                  "ran still holds Conv2D, ...", unless="no default-config graph that ran was read (partition graphs)")
def folding(view):
    """Per default-config row: what the graph that ran holds, and what the classic folder's log said of it."""
    return folding_evidence(list(view.seed_rows)) if _default_with(view.seed_rows, bool) else []


@finding("explain.optimized_again", ("first_run_log", "init_s"),
         template="{variant} [default]: its first run came after the initializer's run in the same session, and "
                  "TensorFlow logged {stages} again: ...",
         unless="no variable's first run logged BuildGraph after its init")
def optimized_anew(view):
    """Rows whose first run, after the initializer's run, logged BuildGraph and the folder again."""
    if not _default_with(view.seed_rows, lambda r: r.init_s is not None):
        return []
    return optimized_again(list(view.seed_rows))


@finding("explain.passes", ("first_run_inside", "logged_first_run_s"),
         template="{variant} [default]: TensorFlow logged {n} Grappler passes taking {time} of the logged first "
                  "run's {time} ({share}); the largest: {passes}.",
         unless="TensorFlow's log holds no line this tool understands")
def passes(view):
    """Where each default-config first run went, pass by pass, as TensorFlow's own log timed it."""
    return first_run_inside(list(view.rows)) if _default_with(view.rows, lambda r: r.first_run_inside) else []


@finding("explain.attribution", ("first_runs_s",), per=every_attribution,
         template="{variant}: of the {time} the first run paid over the later runs (default config), {part} {time} "
                  "({share}), ...; the largest part whose presets' first-run excesses differ is {part} ({verdict}).",
         unless="the variant has no first-run excess or no rows")
def attribution(view, a):
    """Where one variant's first-run excess went; a part is told apart only by the judge on its presets' first runs."""
    rows = list(view.rows)
    if not _attributed(view, a):
        return []
    remote_row = is_remote(a, rows)
    name, total = where(a["variant"], remote_row), a["excess_s"]
    if a["grappler_s"] is None:
        return [f"{name}: the first run paid {fmt_s(total)} over the later runs under the default "
                f"config; attributing it needs all of the presets {', '.join(NEEDED)}."]
    verdicts = {k: part_first_runs(rows, a["variant"], k, total, remote_row) for k in FROM_PRESETS}
    verdicts = {k: v for k, v in verdicts.items() if v is not None}
    parts = sorted(((a[k], k) for k in PARTS if k != "interaction_s"), reverse=True)
    shares = {k: share_text(v, total, verdicts.get(k)) for v, k in parts}
    listed = ", ".join(f"{LABELS[k]} {fmt_s(v)}" + (f" ({shares[k]})" if shares[k] else "") for v, k in parts)
    line = f"{name}: of the {fmt_s(total)} the first run paid over the later runs (default config), {listed}"
    differ = [k for k, v in verdicts.items() if v.differs]
    if differ:
        k = max(differ, key=lambda p: abs(a[p]))
        line += (f"; the largest part whose presets' first-run excesses differ is {LABELS[k]} ({_pair(k)}: "
                 f"{verdicts[k].says(fmt_s)}).")
    else:
        line += ("; no part is told apart (each judged on the first-run excesses of the two presets it is a "
                 "difference of): "
                 + "; ".join(f"{LABELS[k]} ({_pair(k)}) {v.says(fmt_s)}" for k, v in verdicts.items())
                 + more_trials(*verdicts.values()) + ".")
    inter = a["interaction_s"]
    if inter:
        # The interaction is a sum over four presets: no two presets' first runs judge it, so it is given as a number.
        line += (f" {OVERLAP} The three parts {'exceed the excess by' if inter < 0 else 'leave'} "
                 f"{fmt_s(abs(inter))} (the interaction, not judged).")
    return [judged(line, *verdicts.values())]


@finding("explain.folding_share", AGAINST, per=every_attribution,
         template="{variant}: switching constant folding off changed the first run by {time} ({verdict}); one "
                  "single-threaded evaluation of the network took {time} ...",
         unless="the judge does not find that switching folding off changed the first run's excess")
def folding_share(view, a):
    """The constant-folding share beside one single-threaded evaluation, said only when the judge finds that
    switching folding off changed the first run's excess."""
    rows, single = list(view.rows), view.results.single_thread
    if not single or single.get("status") != "ok" or a.get("folding_s") is None:
        return []
    remote_row = is_remote(a, rows)
    verdict = part_first_runs(rows, a["variant"], "folding_s", a["excess_s"], remote_row)
    # Where the no-folding first run is not told apart, the share is the later run that folding removed, not a cost.
    if verdict is None or not verdict.differs:
        return []
    runs = single["runs_s"]
    one = statistics.median(runs)
    return [judged(f"{where(a['variant'], remote_row)}: switching constant folding off changed the first run by "
                   f"{fmt_s(a['folding_s'])} (first-run excesses, {_pair('folding_s')}: {verdict.says(fmt_s)}); "
                   f"one single-threaded evaluation of the network took {fmt_s(one)} (median of {len(runs)}, "
                   f"{single['variant']}, one intra-op and one inter-op thread). The share also holds "
                   f"common-subexpression elimination, which L0 turns off too.", verdict)]


@finding("explain.remote_first_run", AGAINST,
         template="{row}: the first run paid {time} beyond the later runs against {time} in-process: {verdict}; "
                  "remotely the first run also sends the {bytes}-byte GraphDef to the server, where it was longer.",
         unless="no row ran on a grpc:// target")
def remote_first_run(view):
    """Each variant's remote first-run excess against its in-process one, by default and bare."""
    if not any(r.remote for r in view.rows):
        return []
    return (remote.sentences_of_rows([remote.first_run_extra], _under(view.rows, "default"))
            + remote.sentences_of_rows([remote.first_run_extra], _under(view.rows, "bare")))


@finding("explain.remote_later", ("runs_s",),
         template="{row}: later runs took {time} median against {time} in-process: {verdict}.",
         unless="no row ran on a grpc:// target")
def remote_later(view):
    """Each variant's remote later runs against its in-process ones, by default."""
    if not any(r.remote for r in view.rows):
        return []
    return remote.sentences_of_rows([remote.remote_over_local], _under(view.rows, "default"))


@finding("explain.bare_against_fed", AGAINST,
         template="With both optimizers off, {variant}'s first-run excess ({time}) against {fed variant}'s ({time}): "
                  "{verdict}.", unless="the run has no bare preset of a fed and an embedded variant")
def bare_against_fed(view):
    """With every optimizer off, is an embedded variant's first-run excess still above a fed variant's?"""
    if not any(r.preset == "bare" for r in view.seed_rows):
        return []
    # Rows of a user's graph name no variant, so there is no fed variant to hold them against.
    out = []
    for remote_row in (False, True):
        bare = [r for r in view.rows if r.preset == "bare" and r.ok and r.variant in VARIANTS
                and r.remote == remote_row]
        fed = next((r for r in bare if VARIANTS[r.variant].fed_per_run), None)
        if fed is None or fed.first_run_excess_s is None:
            continue
        for r in bare:
            if not VARIANTS[r.variant].embeds_data:
                continue
            verdict = excesses_judged(r, fed, fed.first_run_excess_s)
            # Only a judged "no difference" leaves what the fed graph's first run pays too.
            after = ("; what remains is about what the fed graph's first run pays too" if verdict.same else
                     more_trials(verdict))
            out.append(judged(
                f"With both optimizers off, {where(r.variant, remote_row)}'s first-run excess "
                f"({fmt_s(r.first_run_excess_s)}) against {where(fed.variant, remote_row)}'s "
                f"({fmt_s(fed.first_run_excess_s)}): {verdict.says(fmt_s)}{after}.", verdict))
    return out


@finding("explain.against_default", AGAINST,
         template="{variant}: the first run's excess over the later runs, against {time} by default: {time} with "
                  "{preset}, {verdict}; ...", unless="the run has only the default preset")
def against_default(view):
    """Each preset's first-run excess against the default's, as the judge finds it on the per-worker excesses the
    attribution splits."""
    rows, out = list(view.rows), []
    defaults = {(r.variant, r.remote): r for r in rows if r.preset == "default" and r.ok}
    for (variant, remote_row), base in defaults.items():
        group = [r for r in placed(rows, variant, remote_row) if r.preset != "default" and r.ok]
        if not group:
            continue
        whole = base.first_run_excess_s
        verdicts = [excesses_judged(r, base, whole) for r in group]
        out.append(judged(
            f"{where(variant, remote_row)}: the first run's excess over the later runs, against {fmt_s(whole)} by "
            f"default: " + "; ".join(f"{fmt_s(r.first_run_excess_s)} with {r.preset}, {v.says(fmt_s)}"
                                     for r, v in zip(group, verdicts)) + more_trials(*verdicts) + ".", *verdicts))
    return out


@finding("explain.traces", ("top_ops",),
         template="Conv2D ran / No kernel computing Conv2D ran in the traced later run of {rows} (step stats).",
         unless="no run of the built-in network was traced")
def traces(view):
    """Whether a kernel computing Conv2D ran in the traced later run, per variant and preset (step stats)."""
    return trace_facts(list(view.seed_rows)) if view.seed_rows else []


@finding("explain.slowest_ops", ("top_ops",),
         template="{graph}: the traced first run spent longest in {op} ({type}), {ms} ms; {ms} ms in the second.",
         unless="the run measured the built-in network, not a user's graph")
def slowest_ops(view):
    """Per traced row of a user's graph: its first run's slowest op, and what the same op took in the second run."""
    out = []
    for r in view.rows:
        if r.variant in VARIANTS or not r.ok or not r.top_ops:
            continue
        op = max(r.top_ops, key=lambda o: o["first_ms"] or 0.0)
        if op["first_ms"] is None:
            continue
        later = ("it did not run in the second" if op["later_ms"] is None
                 else f"{op['later_ms']:.3g} ms in the second")
        out.append(f"{r.label}: the traced first run spent longest in {op['op']} ({op['type']}), "
                   f"{op['first_ms']:.3g} ms; {later}.")
    return out


def answer_and_findings(results):
    """(the answer, the findings): every explain finding said over one view of the results, split by headline."""
    # The answer keeps its first SHOWN lines; the excess of a third variant is among the findings.
    return answer_then_findings(FINDINGS["explain"], lambda: View.of(results), SHOWN)
