"""Split the first run's excess over the later runs into Grappler, classic constant folding and the rest."""

from tfgraphs.units import fmt_s

PARTS = ("grappler_s", "folding_s", "rest_s", "interaction_s")
LABELS = {"grappler_s": "Grappler", "folding_s": "constant folding", "rest_s": "the rest",
          "interaction_s": "interaction"}
NEEDED = ("default", "no-grappler", "no-folding", "bare")


def excess(row):
    """First run minus the median later run: what only the first run pays."""
    later = row.later_median_s
    if not row.ok or row.first_run_s is None or later is None:
        return None
    return row.first_run_s - later


def attribute(by_preset):
    """Attribution from {preset: excess_s}; parts are None unless all four presets were measured.

    grappler = E(default) - E(no-grappler); folding = E(default) - E(no-folding); rest = E(bare).
    interaction = E(default) - grappler - folding - rest, which is not zero when switching both off saves more or
    less than switching each off alone (Grappler's own constant folding is counted in both presets, for one).
    """
    e = by_preset
    out = {"excess_s": e.get("default")}
    if any(e.get(p) is None for p in NEEDED):
        return {**out, **dict.fromkeys(PARTS)}
    out["grappler_s"] = e["default"] - e["no-grappler"]
    out["folding_s"] = e["default"] - e["no-folding"]
    out["rest_s"] = e["bare"]
    out["interaction_s"] = e["default"] - out["grappler_s"] - out["folding_s"] - out["rest_s"]
    return out


def attributions(rows, embedded):
    """One attribution per embedded-constant variant present in rows."""
    out = []
    for variant in dict.fromkeys(r.variant for r in rows):
        if variant not in embedded:
            continue
        by_preset = {r.preset: excess(r) for r in rows if r.variant == variant}
        out.append({"variant": variant, **attribute(by_preset)})
    return out


def share(part, total):
    """part as a % of total, or None."""
    return None if part is None or not total else 100.0 * part / total


def noise_s(rows):
    """A difference smaller than this is not a difference: the largest spread of later runs, or of first runs
    across trials when there are several."""
    later = [max(r.runs_s) - min(r.runs_s) for r in rows if r.ok and len(r.runs_s) > 1]
    firsts = [[t.first_run_s for t in r.trials if t.status == "ok"] for r in rows if r.ok]
    first = [max(f) - min(f) for f in firsts if len(f) > 1]
    return max(later + first, default=0.0)


def sentences(report):
    """What the ablation and the traces show, from this report's numbers only."""
    said = []
    rows = report.rows
    for a in report.extra.get("attribution", []):
        # Each variant against its own spread: a large graph's noisy runs say nothing about a small one's.
        noise = noise_s([r for r in rows if r.variant == a["variant"]])
        total = a["excess_s"]
        if total is None:
            continue
        if total <= noise:
            said.append(f"{a['variant']}: the first run paid {fmt_s(total)} over the later runs under the default "
                        f"config, within the spread of the later runs ({fmt_s(noise)}): nothing to attribute.")
            continue
        if a["grappler_s"] is None:
            said.append(f"{a['variant']}: the first run paid {fmt_s(total)} over the later runs under the default "
                        f"config; attributing it needs all of the presets {', '.join(NEEDED)}.")
            continue
        parts = sorted(((a[k], k) for k in PARTS if k != "interaction_s"), reverse=True)
        named = ", ".join(f"{LABELS[k]} {fmt_s(v)} ({share(v, total):.0f}%)" for v, k in parts)
        line = f"{a['variant']}: of the {fmt_s(total)} the first run paid over the later runs (default config), {named}"
        top, key = parts[0]
        if top > noise:
            line += f"; the biggest measured contributor is {LABELS[key]}."
        else:
            line += f"; no part is larger than the spread of the later runs ({fmt_s(noise)})."
        if abs(a["interaction_s"]) > noise:
            line += (f" The parts do not add up: the interaction term is {fmt_s(a['interaction_s'])} "
                     f"({share(a['interaction_s'], total):.0f}%), from overlap between the presets or noise.")
        if report.config.get("trials", 1) == 1:
            line += " Each part rests on one first run per preset; --trials 3 shows their spread."
        said.append(line)
    said.extend(_bare_against_fed(rows))
    said.extend(_no_difference(rows))
    said.extend(_trace_facts(rows))
    return said


def _no_difference(rows):
    """Name the presets that changed a variant's first run by no more than that variant's noise (or 10%)."""
    said = []
    defaults = {r.variant: r for r in rows if r.preset == "default" and r.ok}
    for variant, base in defaults.items():
        noise = noise_s([r for r in rows if r.variant == variant])
        same = [r for r in rows if r.variant == variant and r.preset != "default" and r.ok
                and abs(r.first_run_s - base.first_run_s) <= max(noise, 0.1 * base.first_run_s)]
        if same:
            said.append(f"{variant}: {', '.join(r.preset for r in same)} made no measurable difference to the first "
                        f"run ({', '.join(fmt_s(r.first_run_s) for r in same)} against {fmt_s(base.first_run_s)} "
                        f"by default, within that variant's spread of {fmt_s(max(noise, 0.1 * base.first_run_s))}).")
        moved = [r for r in rows if r.variant == variant and r.preset != "default" and r.ok and r not in same]
        if moved:
            said.append(f"{variant}: the first run took " + ", ".join(
                f"{fmt_s(r.first_run_s)} with {r.preset}" for r in moved) + f", against {fmt_s(base.first_run_s)} "
                f"by default (beyond that variant's spread of {fmt_s(noise)}).")
    return said


def _bare_against_fed(rows):
    """With every optimizer off, is an embedded variant's excess still above a fed variant's?"""
    bare = {r.variant: r for r in rows if r.preset == "bare" and r.ok}
    fed = bare.get("placeholder")
    if fed is None or not excess(fed) or excess(fed) <= 0:
        return []
    said = []
    for variant in ("numpy", "constant", "dataset-embedded"):
        r = bare.get(variant)
        if r is None:
            continue
        times = excess(r) / excess(fed)
        verdict = "close to" if 1 / 1.5 <= times <= 1.5 else f"{times:.1f}x"
        said.append(f"With both optimizers off, {variant}'s first-run excess ({fmt_s(excess(r))}) is {verdict} "
                    f"placeholder's ({fmt_s(excess(fed))})"
                    + (": what remains is about what the fed graph's first run pays too." if verdict == "close to" else "."))
    return said


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
        said.append("Conv2D ran in the traced later run of " + ", ".join(f"{r.variant} [{r.preset}]" for r in kept)
                    + ", with no folded constant in its place.")
    for r in rows:
        if ran_in_later(r, "Conv2D") is False:
            cf = folded_into(r)
            what = f": a folded constant ({cf[0]}) ran in its place" if cf else ""
            said.append(f"Conv2D did not run in the traced later run of {r.variant} [{r.preset}]{what}.")
    return said
