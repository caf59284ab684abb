"""explain's answer block: what the first run paid beyond the later runs, and what TensorFlow said it spent it on."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.findings.explain import share_text
from tfgraphs.findings.inside import grouped
from tfgraphs.records.explain import LABELS, PARTS, is_remote, part_first_runs, placed, where
from tfgraphs.records.stats import MIN_FIRST_RUNS
from tfgraphs.units import fmt_s, join


def answer(report):
    """At most six lines: each variant's first-run excess and its largest judged part, then TensorFlow's own log."""
    said = []
    for a in report.extra.get("attribution", [])[:2]:
        said.extend(_excess(a, report.rows))
    said.extend(_logged([r for r in report.rows if r.preset == "default" and not r.remote])[:2])
    said.extend(_folded([r for r in report.rows if r.preset == "default" and not r.remote]))
    return said[:5] or ["No variant produced a first run to explain."]


@rests_on("first_runs_s", "runs_s")
def _excess(a, rows):
    """One variant's first-run excess, and its parts: the largest judged one, or each with why none is judged."""
    remote = is_remote(a, rows)
    group = placed(rows, a["variant"], remote)
    if a["excess_s"] is None or not group:
        return []
    line = f"{where(a['variant'], remote)}: the first run paid {fmt_s(a['excess_s'])} over the later runs"
    if a["grappler_s"] is None:
        return [line + " (its parts need all four presets)."]
    n = min(len(r.first_runs_s) for r in group)
    parts = ", ".join(f"{LABELS[k]} {fmt_s(a[k])}" for k in PARTS if k != "interaction_s")
    if n < MIN_FIRST_RUNS:
        return [line + f": {parts}, none judged on {n} first run{'s' if n != 1 else ''} a preset "
                       f"(--trials {MIN_FIRST_RUNS})."]
    judged = {k: part_first_runs(rows, a["variant"], k, remote) for k in PARTS}
    real = [k for k in PARTS if k != "interaction_s" and judged[k] is not None and judged[k].real]
    if not real:
        return [line + f": {parts}; none stands out beyond the spread of first runs (n={n} a preset)."]
    k = max(real, key=lambda p: abs(a[p]))
    return [line + f"; the largest part beyond the spread: {LABELS[k]} {fmt_s(a[k])} "
                   f"({share_text(a[k], a['excess_s'], judged[k])}, n={n} a preset)."]


@rests_on("first_run_inside", "logged_first_run_s")
def _logged(rows):
    """What TensorFlow's log timed of a default-config first run: its Grappler passes' share, and the largest."""
    said = []
    for r in rows:
        passes = [s for s in r.first_run_inside if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        if not passes:
            continue
        spent = sum(s["seconds"] for s in passes)
        top = grouped(passes)[0]
        said.append(f"TensorFlow's log, {r.variant}: Grappler took {fmt_s(spent)} of a {fmt_s(r.logged_first_run_s)}"
                    f" first run ({100 * spent / r.logged_first_run_s:.0f}%), most in {top[0].split('/', 1)[1]}.")
    return said


@rests_on("partition_computes")
def _folded(rows):
    """The default-config variants whose graph that ran holds no Conv2D: folded before the first result."""
    folded = [r.variant for r in rows if not r.partition_computes["Conv2D"]]
    if not folded:
        return []
    return [f"Folded by default: the graph that ran holds no Conv2D in {join(folded)} (partition graphs)."]
