"""The sentences of explain's findings: the ablation's parts, the presets judged against each other, the answer's
lines, and a user's graph's slowest ops."""

import statistics

from tfgraphs.findings import remote as far
from tfgraphs.findings.evidence import judged
from tfgraphs.findings.stages import logged_spans
from tfgraphs.records.explain import (FROM_PRESETS, LABELS, NEEDED, PARTS, excesses_judged, is_remote,
                                      part_first_runs, placed, where)
from tfgraphs.records.judge import CANNOT_TELL, FEWEST, RANK_SUM
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s, join


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


def attribution(a, rows):
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
                 f"{fmt_s(inter)}, not judged): "
                 + ("they overlap." if inter < 0 else "they leave a part unexplained."))
    return [judged(line, *verdicts.values())]


def folding_against_single_thread(a, rows, single):
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


def against_default(rows):
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


def bare_against_fed(rows):
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


def remote_first_runs(rows):
    """Each variant's remote first-run excess against its in-process one, by default and bare."""
    return far.first_run_extra(_under(rows, "default")) + far.first_run_extra(_under(rows, "bare"))


def remote_later_runs(rows):
    """Each variant's remote later runs against its in-process ones, by default."""
    return far.remote_over_local(_under(rows, "default"))


def _under(rows, preset):
    return [r for r in rows if r.preset == preset]


# Each part of the excess, as what switching it off saved: no-folding also turns off the classic CSE.
SAVED = {"grappler_s": "Grappler off saved", "folding_s": "folding+CSE off saved", "rest_s": "the rest",
         "interaction_s": "interaction"}


def excess(a, rows):
    """One variant's first-run excess, and its parts: the largest the judge tells apart, or each part's verdict."""
    remote = is_remote(a, rows)
    group = placed(rows, a["variant"], remote)
    if a["excess_s"] is None or not group:
        return []
    line = f"{where(a['variant'], remote)}: the first run paid {fmt_s(a['excess_s'])} more than later runs"
    if a["grappler_s"] is None:
        return [line + "."]
    verdicts = {k: part_first_runs(rows, a["variant"], k, a["excess_s"], remote) for k in FROM_PRESETS}
    verdicts = {k: v for k, v in verdicts.items() if v is not None}
    differ = [k for k, v in verdicts.items() if v.differs]
    if not differ:
        # The parts are in the table; the answer says only that the judge told none of them apart, and why.
        briefs = {k: v.brief(fmt_s) for k, v in verdicts.items()}
        told = (briefs.popitem()[1] if len(set(briefs.values())) == 1 else
                "; ".join(f"{SAVED[k]} {b}" for k, b in briefs.items()))
        return [judged(line + f"; no part of it told apart: {told}" + more_trials(*verdicts.values()) + ".",
                       *verdicts.values())]
    k = max(differ, key=lambda p: abs(a[p]))
    share = share_text(a[k], a["excess_s"], verdicts[k])
    return [judged(line + f"; the largest part told apart: {SAVED[k]} {fmt_s(a[k])} ("
                   + (f"{share}; " if share else "") + f"{verdicts[k].brief(fmt_s)}).", verdicts[k])]


def bare_presets(a, rows):
    """The attribution's default and bare rows, when both are ok, else None."""
    by = {r.preset: r for r in placed(rows, a["variant"], is_remote(a, rows)) if r.ok}
    return (by["default"], by["bare"]) if "default" in by and "bare" in by else None


def bare_excess(a, rows):
    """With every optimizer off: the bare preset's first-run excess against the default's, judged across workers."""
    default, bare = bare_presets(a, rows)
    name = where(a["variant"], is_remote(a, rows))
    verdict = excesses_judged(bare, default, default.first_run_excess_s)
    return [judged(f"{name}, every optimizer off (bare): the excess was {fmt_s(bare.first_run_excess_s)} against "
                   f"{fmt_s(default.first_run_excess_s)} by default, {verdict.brief(fmt_s)}{more_trials(verdict)}.",
                   verdict)]


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


def logged(rows):
    """The logged first runs' stages in one answer line."""
    return [f"Where each logged first run went, by TensorFlow's own log: {'; '.join(logged_parts(rows)[:3])}."]


def folded(rows):
    """The default-config variants whose graph that ran holds no Conv2D: folded before the first result."""
    folded = [r.variant for r in rows if not r.partition_computes["Conv2D"]]
    return [f"Folded by default: the graph that ran holds no Conv2D in {join(folded)} (partition graphs)."]


def slowest_ops(rows):
    """Per traced row of a user's graph: its first run's slowest op, and what the same op took in the second run."""
    said = []
    for r in rows:
        if r.variant in VARIANTS or not r.ok or not r.top_ops:
            continue
        op = max(r.top_ops, key=lambda o: o["first_ms"] or 0.0)
        if op["first_ms"] is None:
            continue
        later = ("it did not run in the second" if op["later_ms"] is None
                 else f"{op['later_ms']:.3g} ms in the second")
        said.append(f"{r.label}: the traced first run spent longest in {op['op']} ({op['type']}), "
                    f"{op['first_ms']:.3g} ms; {later}.")
    return said
