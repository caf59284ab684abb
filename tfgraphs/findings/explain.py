"""Explain an explain report from its own numbers: where the first run's excess goes, and what the traces show."""

import statistics

from tfgraphs.findings import remote as far
from tfgraphs.findings.owngraph import slowest_ops
from tfgraphs.records.explain import LABELS, NEEDED, PARTS, is_remote, part_spread, placed, where
from tfgraphs.records.stats import judge, share_bounds, spread
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s


def noise_s(rows):
    """The spread a variant's differences are judged against: the largest spread of its ok rows."""
    return max((r.spread_s for r in rows if r.ok), default=0.0)


def share_text(part, total, spread):
    """part as a % of total when it exceeds the spread it was judged against; else the range it may lie in."""
    if part is None or not total:
        return None
    lo, hi = share_bounds(part, total, spread)
    return f"{100 * lo:.0f}%" if lo == hi else f"{100 * lo:.0f}% to {100 * hi:.0f}%"


def sentences(report):
    """What the ablation and the traces show, from this report's numbers only."""
    said = []
    rows = report.rows
    single = report.extra.get("single_thread")
    for a in report.extra.get("attribution", []):
        said.extend(_attribution(a, rows, report.config.get("trials", 1)))
        said.extend(_folding_against_single_thread(a, rows, single))
    said.extend(_remote_against_in_process(rows))
    said.extend(_bare_against_fed(rows))
    said.extend(_no_difference(rows))
    # The Conv2D facts are about the built-in network; a user's graph gets its slowest ops instead.
    said.extend(_trace_facts([r for r in rows if r.variant in VARIANTS]))
    said.extend(slowest_ops(rows))
    return said


def _attribution(a, rows, trials):
    """Where one variant's first-run excess went, each share printed only when it is beyond its spread."""
    # Each variant (and place) against its own spread: a large graph's noisy runs say nothing about a small one's.
    remote = is_remote(a, rows)
    name, noise = where(a["variant"], remote), noise_s(placed(rows, a["variant"], remote))
    total = a["excess_s"]
    if total is None:
        return []
    if not judge(total, noise).larger:
        return [f"{name}: the first run paid {fmt_s(total)} over the later runs under the default "
                f"config, within the spread of the later runs ({fmt_s(noise)}): nothing to attribute."]
    if a["grappler_s"] is None:
        return [f"{name}: the first run paid {fmt_s(total)} over the later runs under the default "
                f"config; attributing it needs all of the presets {', '.join(NEEDED)}."]
    spreads = {k: part_spread(rows, a["variant"], k, remote) for k in PARTS}
    parts = sorted(((a[k], k) for k in PARTS if k != "interaction_s"), reverse=True)
    named = ", ".join(f"{LABELS[k]} {fmt_s(v)} ({share_text(v, total, spreads[k])})" for v, k in parts)
    line = f"{name}: of the {fmt_s(total)} the first run paid over the later runs (default config), {named}"
    top, key = parts[0]
    if judge(top, spreads[key]).real:
        line += f"; the biggest measured contributor is {LABELS[key]}."
    else:
        line += f"; no part is larger than the spread of the workers it came from ({fmt_s(spreads[key])})."
    inter = a["interaction_s"]
    if judge(inter, spreads["interaction_s"]).real:
        line += (f" The parts do not add up: the interaction term is {fmt_s(inter)} "
                 f"({share_text(inter, total, spreads['interaction_s'])}): switching both optimizers off saved "
                 + ("less than the sum of switching each off alone, so the parts overlap." if inter < 0 else
                    "more than the sum of switching each off alone: with one off, the other did part of its work."))
    if trials == 1:
        line += " Each part rests on one first run per preset; --trials 3 shows their spread."
    return [line]


def _folding_against_single_thread(a, rows, single):
    """The constant-folding share beside one single-threaded evaluation of the network, judged on both spreads."""
    if not single or single.get("status") != "ok" or a.get("folding_s") is None:
        return []
    runs = single["runs_s"]
    one = statistics.median(runs)
    remote = is_remote(a, rows)
    d = judge(a["folding_s"] - one, part_spread(rows, a["variant"], "folding_s", remote), spread(runs))
    verdict = ("they match within" if not d.real else
               f"the folding share is {fmt_s(abs(d.delta))} {'more' if d.delta > 0 else 'less'}, beyond")
    return [f"{where(a['variant'], remote)}: the constant-folding share ({fmt_s(a['folding_s'])}) against one "
            f"single-threaded evaluation of the network ({fmt_s(one)} median of {len(runs)}, {single['variant']}, "
            f"one intra-op and one inter-op thread, as the classic folder evaluates a constant subgraph): {verdict} a "
            f"spread of {fmt_s(d.spread)}. The share also holds common-subexpression elimination, which L0 turns "
            f"off too."]


def _no_difference(rows):
    """Name the presets that changed a variant's first run by no more than that variant's spread."""
    said = []
    defaults = {(r.variant, r.remote): r for r in rows if r.preset == "default" and r.ok}
    for (variant, remote), base in defaults.items():
        group = placed(rows, variant, remote)
        noise, name = noise_s(group), where(variant, remote)
        same = [r for r in group if r.preset != "default" and r.ok
                and not judge(r.first_run_s - base.first_run_s, noise).real]
        if same:
            said.append(f"{name}: {', '.join(r.preset for r in same)} made no measurable difference to the first "
                        f"run ({', '.join(fmt_s(r.first_run_s) for r in same)} against {fmt_s(base.first_run_s)} "
                        f"by default, within that variant's spread of {fmt_s(noise)}).")
        moved = [r for r in group if r.preset != "default" and r.ok and r not in same]
        if moved:
            said.append(f"{name}: the first run took " + ", ".join(
                f"{fmt_s(r.first_run_s)} with {r.preset}" for r in moved) + f", against {fmt_s(base.first_run_s)} "
                f"by default (beyond that variant's spread of {fmt_s(noise)}).")
    return said


def _bare_against_fed(rows):
    """With every optimizer off, is an embedded variant's excess still above a fed variant's?"""
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
            d = judge(e - f, r.spread_s, fed.spread_s)
            verdict = "not measurably different from" if not d.real else f"{e / f:.1f}x"
            said.append(f"With both optimizers off, {where(r.variant, remote)}'s first-run excess ({fmt_s(e)}) is "
                        f"{verdict} {where(fed.variant, remote)}'s ({fmt_s(f)}, judged against a spread of "
                        f"{fmt_s(d.spread)})"
                        + (": what remains is about what the fed graph's first run pays too." if not d.real else "."))
    return said


def _remote_against_in_process(rows):
    """Each variant's remote first-run excess against its in-process one, by default and bare, then its later runs."""
    def under(preset):
        return [r for r in rows if r.preset == preset]
    return far.first_run_extra(under("default")) + far.first_run_extra(under("bare")) + far.remote_over_local(
        under("default"))


def ran_in_later(row, op_type):
    """True/False whether an op of this type ran in the second traced run; None without a trace."""
    if not row.top_ops:
        return None
    return any(op["type"] == op_type and op["later_ms"] is not None for op in row.top_ops)


def folded_into(row):
    """Names of constant-folded nodes (`..._cf__...`, from Grappler or the classic folder) in the later traced run."""
    return [op["op"] for op in row.top_ops if "__cf__" in op["op"] and op["later_ms"] is not None]


def _trace_facts(rows):
    """Whether the convolution was still computed in the later runs, per variant and preset."""
    said = []
    kept = [r for r in rows if ran_in_later(r, "Conv2D") and not folded_into(r)]
    if kept:
        said.append("Conv2D ran in the traced later run of " + ", ".join(_named(r) for r in kept)
                    + ", with no folded constant in its place.")
    for r in rows:
        if ran_in_later(r, "Conv2D") is False:
            cf = folded_into(r)
            what = f": a folded constant ({cf[0]}) ran in its place" if cf else ""
            said.append(f"Conv2D did not run in the traced later run of {_named(r)}{what}.")
    return said


def _named(row):
    """variant [preset], and remote when it ran on a target."""
    return f"{row.variant} [{row.preset}]" + (" remote" if row.remote else "")
