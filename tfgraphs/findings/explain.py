"""Explain an explain report from its evidence: TensorFlow's log of the first run, the graph that ran, the traces."""

import statistics

from tfgraphs.findings import inside, remote as far, stages
from tfgraphs.findings.owngraph import slowest_ops
from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.explain import (FROM_PRESETS, LABELS, NEEDED, PARTS, excesses_judged, is_remote,
                                      part_first_runs, placed, where)
from tfgraphs.records.judge import CANNOT_TELL, FEWEST, RANK_SUM
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s


def share_text(part, total, verdict):
    """part as a % of total with the 95% interval of the judge's verdict on it over total; None without a verdict,
    when its first runs are too few to bound the interval, or when total is not positive."""
    # A share of an excess that is not positive is no share of what the first run paid.
    if part is None or total is None or total <= 0 or verdict is None or not verdict.bounded:
        return None
    # The share is of the part as reported; its interval is the judge's, of the per-worker first-run excesses.
    low, high = sorted((verdict.low / total, verdict.high / total))
    return f"{part / total:.0%}, 95% CI {low:.0%} to {high:.0%}"


def more_trials(*verdicts, option="--trials"):
    """'; run with --trials 4 or more' when a verdict could not tell for too few samples a side, else ''; option names
    the workers that give those samples (--full-trials for later runs where only the full trials run them)."""
    fewest = FEWEST[RANK_SUM]
    short = any(v.outcome == CANNOT_TELL and min(v.n_a, v.n_b) < fewest for v in verdicts)
    return f"; run with {option} {fewest} or more" if short else ""


def _pair(part):
    """'default against no-grappler': the two presets a part is the difference of."""
    return " against ".join(FROM_PRESETS[part])


def sentences(report):
    """What the ablation, TensorFlow's log and the traces show, from this report's evidence only."""
    said = []
    rows = report.rows
    single = report.extra.get("single_thread")
    # The Conv2D facts are about the built-in network; a user's graph gets its slowest ops instead.
    seed_rows = [r for r in rows if r.variant in VARIANTS]
    said.extend(stages.where_it_went(rows))
    said.extend(stages.network_ran_twice(seed_rows))
    said.extend(inside.folding_evidence(seed_rows))
    said.extend(stages.optimized_again(seed_rows))
    said.extend(inside.first_run_inside(rows))
    for a in report.extra.get("attribution", []):
        said.extend(_attribution(a, rows))
        said.extend(_folding_against_single_thread(a, rows, single))
    said.extend(_remote_against_in_process(rows))
    said.extend(_bare_against_fed(rows))
    said.extend(_against_default(rows))
    said.extend(inside.trace_facts(seed_rows))
    said.extend(slowest_ops(rows))
    return said


@rests_on("first_runs_s")
def _attribution(a, rows):
    """Where one variant's first-run excess went; a part is told apart only by the judge on its presets' first runs."""
    remote = is_remote(a, rows)
    group = placed(rows, a["variant"], remote)
    name, total = where(a["variant"], remote), a["excess_s"]
    if total is None or not group:
        return []
    if a["grappler_s"] is None:
        return [f"{name}: the first run paid {fmt_s(total)} over the later runs under the default "
                f"config; attributing it needs all of the presets {', '.join(NEEDED)}."]
    verdicts = {k: part_first_runs(rows, a["variant"], k, total, remote) for k in FROM_PRESETS}
    verdicts = {k: v for k, v in verdicts.items() if v is not None}
    parts = sorted(((a[k], k) for k in PARTS if k != "interaction_s"), reverse=True)
    shares = {k: share_text(v, total, verdicts.get(k)) for v, k in parts}
    named = ", ".join(f"{LABELS[k]} {fmt_s(v)}" + (f" ({shares[k]})" if shares[k] else "") for v, k in parts)
    line = f"{name}: of the {fmt_s(total)} the first run paid over the later runs (default config), {named}"
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
        line += (f" The parts add up to {100 * (total - inter) / total:.0f}% of the excess (interaction "
                 f"{fmt_s(inter)}, not judged): " + ("they overlap." if inter < 0 else "they leave a part unexplained."))
    return [judged(line, *verdicts.values())]


@rests_on("first_runs_s", "runs_s")
def _folding_against_single_thread(a, rows, single):
    """The constant-folding share beside one single-threaded evaluation, said only when the judge finds that
    switching folding off changed the first run's excess."""
    if not single or single.get("status") != "ok" or a.get("folding_s") is None:
        return []
    remote = is_remote(a, rows)
    verdict = part_first_runs(rows, a["variant"], "folding_s", a["excess_s"], remote)
    # Where the no-folding first run is not told apart, the share is the later run that folding removed, not a cost.
    if verdict is None or not verdict.differs:
        return []
    runs = single["runs_s"]
    one = statistics.median(runs)
    return [judged(f"{where(a['variant'], remote)}: switching constant folding off changed the first run by "
                   f"{fmt_s(a['folding_s'])} (first-run excesses, {_pair('folding_s')}: {verdict.says(fmt_s)}); "
                   f"one single-threaded evaluation of the network took {fmt_s(one)} (median of {len(runs)}, "
                   f"{single['variant']}, one intra-op and one inter-op thread). The share also holds "
                   f"common-subexpression elimination, which L0 turns off too.", verdict)]


@rests_on("first_runs_s", "runs_s")
def _against_default(rows):
    """Each preset's first-run excess against the default's, as the judge finds it on the per-worker excesses the
    attribution splits."""
    said = []
    defaults = {(r.variant, r.remote): r for r in rows if r.preset == "default" and r.ok}
    for (variant, remote), base in defaults.items():
        group = [r for r in placed(rows, variant, remote) if r.preset != "default" and r.ok]
        if not group:
            continue
        whole = base.first_run_excess_s
        verdicts = [excesses_judged(r, base, whole) for r in group]
        said.append(judged(
            f"{where(variant, remote)}: the first run's excess over the later runs, against {fmt_s(whole)} by "
            f"default: " + "; ".join(f"{fmt_s(r.first_run_excess_s)} with {r.preset}, {v.says(fmt_s)}"
                                     for r, v in zip(group, verdicts)) + more_trials(*verdicts) + ".", *verdicts))
    return said


@rests_on("first_runs_s", "runs_s")
def _bare_against_fed(rows):
    """With every optimizer off, is an embedded variant's first-run excess still above a fed variant's?"""
    # Rows of a user's graph name no variant, so there is no fed variant to hold them against.
    said = []
    for remote in (False, True):
        bare = [r for r in rows if r.preset == "bare" and r.ok and r.variant in VARIANTS and r.remote == remote]
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
            said.append(judged(
                f"With both optimizers off, {where(r.variant, remote)}'s first-run excess "
                f"({fmt_s(r.first_run_excess_s)}) against {where(fed.variant, remote)}'s "
                f"({fmt_s(fed.first_run_excess_s)}): {verdict.says(fmt_s)}{after}.", verdict))
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
