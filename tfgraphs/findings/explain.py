"""Explain an explain report from its evidence: TensorFlow's log of the first run, the graph that ran, the traces."""

import statistics

from tfgraphs.findings import inside, remote as far
from tfgraphs.findings.owngraph import slowest_ops
from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.explain import LABELS, NEEDED, PARTS, is_remote, part_first_runs, placed, where
from tfgraphs.records.stats import MIN_FIRST_RUNS, first_run_count, first_runs
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s


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
    said.extend(inside.first_run_inside(rows))
    said.extend(inside.folding_evidence(seed_rows))
    for a in report.extra.get("attribution", []):
        said.extend(_attribution(a, rows))
        said.extend(_folding_against_single_thread(a, rows, single))
    said.extend(_remote_against_in_process(rows))
    said.extend(_bare_against_fed(rows))
    said.extend(_no_difference(rows))
    said.extend(inside.trace_facts(seed_rows))
    said.extend(slowest_ops(rows))
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
    return first_run_count(rows) + " (one per fresh worker)"


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


def _named(row):
    """variant [preset], and remote when it ran on a target."""
    return f"{row.variant} [{row.preset}]" + (" remote" if row.remote else "")
