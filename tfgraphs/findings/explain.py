"""Explain an explain report from its evidence: TensorFlow's log of the first run, the graph that ran, the traces."""

import statistics

from tfgraphs.findings import remote as far
from tfgraphs.findings.owngraph import slowest_ops
from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.explain import LABELS, NEEDED, PARTS, is_remote, part_first_runs, placed, where
from tfgraphs.records.stats import MIN_FIRST_RUNS, first_runs, spread
from tfgraphs.spec.kernels import runs_as
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s, join


def noise_s(rows):
    """The spread of later runs a variant's later-run differences are judged against: the largest of its ok rows."""
    return max((spread(r.runs_s) for r in rows if r.ok), default=0.0)


def share_text(part, total, judged):
    """part as a % of total when it is real by the first-run rule; the range it may lie in when judged but not real;
    None when there is no judgement (fewer than MIN_FIRST_RUNS first runs a side)."""
    if part is None or not total or judged is None or not judged.judged:
        return None
    # The verdict is the first-run rule's, on the per-worker samples; the share is of the part as reported.
    if judged.real:
        return f"{100 * part / total:.0f}%"
    lo, hi = sorted(((part - judged.spread) / total, (part + judged.spread) / total))
    return f"{100 * lo:.0f}% to {100 * hi:.0f}%"


def sentences(report):
    """What the ablation, TensorFlow's log and the traces show, from this report's evidence only."""
    said = []
    rows = report.rows
    single = report.extra.get("single_thread")
    # The Conv2D facts are about the built-in network; a user's graph gets its slowest ops instead.
    seed_rows = [r for r in rows if r.variant in VARIANTS]
    said.extend(first_run_inside(rows))
    said.extend(folding_evidence(seed_rows))
    for a in report.extra.get("attribution", []):
        said.extend(_attribution(a, rows))
        said.extend(_folding_against_single_thread(a, rows, single))
    said.extend(_remote_against_in_process(rows))
    said.extend(_bare_against_fed(rows))
    said.extend(_no_difference(rows))
    said.extend(trace_facts(seed_rows))
    said.extend(slowest_ops(rows))
    return said


@rests_on("first_run_inside", "logged_first_run_s")
def first_run_inside(rows):
    """Where each default-config first run went, pass by pass, as TensorFlow's own log timed it."""
    said = []
    for r in rows:
        # Nothing understood in the log: the page says so once, in place of the table.
        if r.preset != "default" or not r.first_run_inside:
            continue
        passes = [s for s in r.first_run_inside if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        line = f"{_named(r)}: "
        if passes:
            spent = sum(s["seconds"] for s in passes)
            by = grouped(passes)
            top = ", ".join(f"{stage.split('/', 1)[1]} {fmt_s(t)}" for stage, t in by[:3])
            fold = [s for s in passes if s["stage"] == "grappler/constant_folding"]
            removed = sum(-s["nodes_change"] for s in fold)
            folding = ("" if not fold else
                       f"; its constant_folding passes left the node count unchanged" if removed == 0
                       else f"; its constant_folding passes changed the node count by {-removed:+d}")
            line += (f"TensorFlow logged {len(passes)} Grappler passes taking {fmt_s(spent)} of the logged first "
                     f"run's {fmt_s(r.logged_first_run_s)} ({100 * spent / r.logged_first_run_s:.0f}%); the largest: "
                     f"{top}{folding}.")
        else:
            line += "TensorFlow logged no Grappler pass in this first run."
        found = classic_on_graph_that_ran(r)
        replaced = [s["replaced"] for s in r.first_run_inside if "replaced" in s]
        if replaced:
            line += f" The classic folder logged that it replaced {join(replaced)} by a constant (it logs no time)."
        elif found:
            line += (f" The classic folder logged \"Constant foldable {found['foldable']} : {found['nodes']}\" "
                     f"({found['source']}) and no replacement (it logs no time).")
        said.append(line)
    return said


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


@rests_on("partition_computes", "replaced_by_const")
def folding_evidence(rows):
    """Per default-config row: what the graph that ran holds, and what the classic folder's log said of it."""
    said = []
    for r in rows:
        if r.preset != "default":
            continue
        if not r.partition_computes["Conv2D"]:
            said.append(f"{_named(r)}: folded. The graph that ran holds no Conv2D"
                        + (f"; the Const {join(r.replaced_by_const)}, made by folding, stands in its place"
                           if r.replaced_by_const else "")
                        + " (partition graphs).")
            continue
        found = classic_on_graph_that_ran(r)
        # The executor's own _Retval and _Arg are marked stateful too; they say nothing about the network.
        stateful = [t for t in (r.partition_stateful or ()) if not t.startswith("_")]
        if stateful:
            said.append(f"{_named(r)}: not folded. The graph that ran still holds Conv2D, fed by stateful ops "
                        f"({join(stateful)}, as TensorFlow's op registry marks them), which no constant folder "
                        f"evaluates (partition graphs).")
        elif found and found["foldable"] and not r.replaced_by_const:
            # common_runtime/constant_folding.cc, with no shape map (DirectSession's case), evaluates the foldable
            # subgraph first and only then skips the results over max_constant_size_in_bytes.
            said.append(f"{_named(r)}: not folded. The classic folder logged \"Constant foldable {found['foldable']} : "
                        f"{found['nodes']}\" ({found['source']}; node ids of the constant graph it built : of the "
                        f"graph that ran) and no replacement, and that graph still holds Conv2D (partition graphs): "
                        f"the folder evaluated the network and did not keep the result, as its source does with a "
                        f"result over its size limit.")
        elif r.partition_ops.get("_Arg"):
            said.append(f"{_named(r)}: not folded. The graph that ran receives its inputs as "
                        f"{r.partition_ops['_Arg']} fed _Arg node{'s' if r.partition_ops['_Arg'] > 1 else ''} and "
                        f"still holds Conv2D (partition graphs): no op that needs a fed value can be folded.")
        else:
            said.append(f"{_named(r)}: not folded. The graph that ran still holds Conv2D and folding made no Const "
                        f"(partition graphs).")
    return said


@rests_on("first_runs_s")
def _attribution(a, rows):
    """Where one variant's first-run excess went; a part is called real only by the first-run rule."""
    remote = is_remote(a, rows)
    group = placed(rows, a["variant"], remote)
    name, total = where(a["variant"], remote), a["excess_s"]
    if total is None or not group:
        return []
    n = min(len(r.first_runs_s) for r in group)
    if a["grappler_s"] is None:
        return [f"{name}: the first run paid {fmt_s(total)} over the later runs under the default "
                f"config; attributing it needs all of the presets {', '.join(NEEDED)}."]
    judged = {k: part_first_runs(rows, a["variant"], k, remote) for k in PARTS}
    parts = sorted(((a[k], k) for k in PARTS if k != "interaction_s"), reverse=True)
    named = ", ".join(f"{LABELS[k]} {fmt_s(v)}" + (f" ({share_text(v, total, judged[k])})"
                                                  if share_text(v, total, judged[k]) else "") for v, k in parts)
    line = f"{name}: of the {fmt_s(total)} the first run paid over the later runs (default config), {named}"
    if n < MIN_FIRST_RUNS:
        return [line + f". Each part is a difference of first runs resting on {n} sample{'s' if n != 1 else ''} "
                       f"per preset, so none is judged (--trials {MIN_FIRST_RUNS} judges them)."]
    real = [(v, k) for v, k in parts if judged[k] is not None and judged[k].real]
    if real:
        v, k = max(real, key=lambda vk: abs(vk[0]))
        line += (f"; the largest part beyond the spread of its first-run excesses ({fmt_s(judged[k].spread)}, "
                 f"{judged[k].samples}) is {LABELS[k]}.")
    else:
        line += f"; no part exceeds the spread of the first runs it is a difference of (n={n} per preset)."
    inter = a["interaction_s"]
    if inter:
        # The interaction is a sum over four presets: no single spread judges it, so it is given as a number.
        line += (f" The parts add up to {100 * (total - inter) / total:.0f}% of the excess (interaction "
                 f"{fmt_s(inter)}, not judged): " + ("they overlap." if inter < 0 else "they leave a part unexplained."))
    return [line]


@rests_on("first_runs_s", "runs_s")
def _folding_against_single_thread(a, rows, single):
    """The constant-folding share beside one single-threaded evaluation, said only when folding changed the first
    run by the first-run rule."""
    if not single or single.get("status") != "ok" or a.get("folding_s") is None:
        return []
    remote = is_remote(a, rows)
    judged = part_first_runs(rows, a["variant"], "folding_s", remote)
    # Where the no-folding first run is no different, the share is the later run that folding removed, not a cost.
    if judged is None or not judged.real:
        return []
    runs = single["runs_s"]
    one = statistics.median(runs)
    return [f"{where(a['variant'], remote)}: switching constant folding off changed the first run by "
            f"{fmt_s(a['folding_s'])} ({judged.samples} first runs, beyond their spread of {fmt_s(judged.spread)}); "
            f"one single-threaded evaluation of the network took {fmt_s(one)} (median of {len(runs)}, "
            f"{single['variant']}, one intra-op and one inter-op thread). The share also holds "
            f"common-subexpression elimination, which L0 turns off too."]

@rests_on("first_runs_s", "runs_s")
def _no_difference(rows):
    """Each preset's first-run excess against the default's, by the first-run rule, on the same quantity the
    attribution splits; with too few samples, the numbers."""
    said = []
    defaults = {(r.variant, r.remote): r for r in rows if r.preset == "default" and r.ok}
    for (variant, remote), base in defaults.items():
        group = [r for r in placed(rows, variant, remote) if r.preset != "default" and r.ok]
        name = where(variant, remote)
        judged = {r.preset: first_runs(r.first_run_excesses_s, base.first_run_excesses_s) for r in group}
        against = f"against {fmt_s(base.first_run_excess_s)} by default"
        unjudged = [r for r in group if not judged[r.preset].judged]
        if unjudged:
            said.append(f"{name}: the first run's excess over the later runs was " + ", ".join(
                f"{fmt_s(r.first_run_excess_s)} with {r.preset}" for r in unjudged) + f", {against}; each rests "
                f"on {_samples(unjudged + [base])}, too few to call a difference (--trials {MIN_FIRST_RUNS} "
                f"judges it).")
        same = [r for r in group if judged[r.preset].judged and not judged[r.preset].real]
        if same:
            said.append(f"{name}: the first run's excess was " + ", ".join(
                f"{fmt_s(r.first_run_excess_s)} with {r.preset}" for r in same) + f", {against}: no difference "
                f"resolved by these first runs (within their spread, "
                + ", ".join(f"{fmt_s(judged[r.preset].spread)} ({judged[r.preset].samples})" for r in same) + ").")
        moved = [r for r in group if judged[r.preset].real]
        if moved:
            said.append(f"{name}: the first run's excess was " + ", ".join(
                f"{fmt_s(r.first_run_excess_s)} with {r.preset}" for r in moved) + f", {against}, beyond the "
                f"spread of first-run excesses ("
                + ", ".join(f"{fmt_s(judged[r.preset].spread)}, {judged[r.preset].samples}" for r in moved) + ").")
    return said


def _samples(rows):
    """'1 first run' or '1 to 3 first runs': how many fresh-worker samples the rows' first runs rest on."""
    counts = sorted({len(r.first_runs_s) for r in rows})
    n = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    return f"{n} first run{'' if counts[-1] == 1 else 's'} (one per fresh worker)"


@rests_on("first_runs_s", "runs_s")
def _bare_against_fed(rows):
    """With every optimizer off, is an embedded variant's first-run excess still above a fed variant's?"""
    # Rows of a user's graph name no variant, so there is no fed variant to hold them against.
    said = []
    for remote in (False, True):
        bare = [r for r in rows if r.preset == "bare" and r.ok and r.variant in VARIANTS and r.remote == remote]
        fed = next((r for r in bare if VARIANTS[r.variant].fed_per_run), None)
        if fed is None or not fed.first_run_excess_s or fed.first_run_excess_s <= 0:
            continue
        for r in bare:
            if not VARIANTS[r.variant].embeds_data:
                continue
            e, f = r.first_run_excess_s, fed.first_run_excess_s
            d = first_runs(r.first_run_excesses_s, fed.first_run_excesses_s)
            head = (f"With both optimizers off, {where(r.variant, remote)}'s first-run excess ({fmt_s(e)}) against "
                    f"{where(fed.variant, remote)}'s ({fmt_s(f)})")
            if not d.judged:
                said.append(f"{head}: each rests on {_samples([r, fed])}, too few to call a difference "
                            f"(--trials {MIN_FIRST_RUNS} judges it).")
            elif d.real:
                said.append(f"{head}: {e / f:.1f}x, beyond the spread of first-run excesses ({fmt_s(d.spread)}, "
                            f"{d.samples}).")
            else:
                said.append(f"{head}: no difference resolved against the spread of first-run excesses "
                            f"({fmt_s(d.spread)}, {d.samples}); what remains is about what the fed graph's first run "
                            f"pays too.")
    return said


def _remote_against_in_process(rows):
    """Each variant's remote first-run excess against its in-process one, by default and bare, then its later runs."""
    def under(preset):
        return [r for r in rows if r.preset == preset]
    return far.first_run_extra(under("default")) + far.first_run_extra(under("bare")) + far.remote_over_local(
        under("default"))


def ran_in_later(row, op_type):
    """True/False whether a kernel computing op_type (oneDNN's names too) ran in the second traced run."""
    return any(runs_as(op["type"], op_type) and op["later_ms"] is not None for op in row.top_ops)


@rests_on("top_ops")
def trace_facts(rows):
    """Whether a kernel computing Conv2D ran in the traced later run, per variant and preset (step stats)."""
    said = []
    kept = [r for r in rows if ran_in_later(r, "Conv2D")]
    if kept:
        said.append("Conv2D ran in the traced later run of " + ", ".join(
            _named(r) + ("" if _kernel(r, "Conv2D") == "Conv2D" else f" (as {_kernel(r, 'Conv2D')})")
            for r in kept) + " (step stats).")
    gone = [r for r in rows if not ran_in_later(r, "Conv2D")]
    if gone:
        said.append("No kernel computing Conv2D ran in the traced later run of " + ", ".join(_named(r) for r in gone)
                    + " (step stats).")
    return said


def _kernel(row, op_type):
    """The kernel type that computed op_type in the later traced run, as step stats name it."""
    return next(op["type"] for op in row.top_ops if runs_as(op["type"], op_type) and op["later_ms"] is not None)


def _named(row):
    """variant [preset], and remote when it ran on a target."""
    return f"{row.variant} [{row.preset}]" + (" remote" if row.remote else "")
