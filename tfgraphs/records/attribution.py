"""Split the first run's excess over the later runs into Grappler, classic constant folding and the rest."""

from tfgraphs.spec.variants import VARIANTS

PARTS = ("grappler_s", "folding_s", "rest_s", "interaction_s")
LABELS = {"grappler_s": "Grappler", "folding_s": "constant folding", "rest_s": "the rest",
          "interaction_s": "interaction"}
NEEDED = ("default", "no-grappler", "no-folding", "bare")


def attribute(by_preset):
    """Attribution from {preset: first-run excess in s}; parts are None unless all four presets were measured.

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


def attributions(rows):
    """One attribution per variant in rows that embeds X in its graph."""
    out = []
    for variant in dict.fromkeys(r.variant for r in rows):
        if not VARIANTS[variant].embeds_data:
            continue
        by_preset = {r.preset: r.first_run_excess_s for r in rows if r.variant == variant}
        out.append({"variant": variant, **attribute(by_preset)})
    return out


def share(part, total):
    """part as a % of total, or None."""
    return None if part is None or not total else 100.0 * part / total
