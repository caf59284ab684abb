"""explain's answer block: what the first run paid beyond the later runs, and what TensorFlow said it spent it on."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.explain import more_trials, share_text
from tfgraphs.findings.stages import logged_spans
from tfgraphs.records.explain import FROM_PRESETS, excesses_judged, is_remote, part_first_runs, placed, where
from tfgraphs.units import fmt_s, join


# Each part of the excess, as what switching it off saved: no-folding also turns off the classic CSE.
SAVED = {"grappler_s": "Grappler off saved", "folding_s": "folding+CSE off saved", "rest_s": "the rest",
         "interaction_s": "interaction"}


def answer(report):
    """At most six lines: each variant's first-run excess and its largest judged part, then TensorFlow's own log."""
    said = []
    for a in report.extra.get("attribution", [])[:2]:
        said.extend(_excess(a, report.rows))
    said.extend(_logged([r for r in report.rows if r.preset == "default" and not r.remote]))
    said.extend(_folded([r for r in report.rows if r.preset == "default" and not r.remote]))
    return said[:5] or ["No variant produced a first run to explain."]


@rests_on("first_runs_s", "runs_s")
def _excess(a, rows):
    """One variant's first-run excess, and its parts: the largest the judge tells apart, or each part's verdict."""
    remote = is_remote(a, rows)
    group = placed(rows, a["variant"], remote)
    if a["excess_s"] is None or not group:
        return []
    line = f"{where(a['variant'], remote)}: the first run paid {fmt_s(a['excess_s'])} more than later runs"
    if a["grappler_s"] is None:
        return [line + "."] + _bare(group, where(a["variant"], remote))
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


@rests_on("first_runs_s", "runs_s")
def _bare(group, name):
    """With every optimizer off: the bare preset's first-run excess against the default's, judged across workers."""
    by = {r.preset: r for r in group if r.ok}
    default, bare = by.get("default"), by.get("bare")
    if default is None or bare is None:
        return []
    verdict = excesses_judged(bare, default, default.first_run_excess_s)
    return [judged(f"{name}, every optimizer off (bare): the excess was {fmt_s(bare.first_run_excess_s)} against "
                   f"{fmt_s(default.first_run_excess_s)} by default, {verdict.brief(fmt_s)}{more_trials(verdict)}.",
                   verdict)]


@rests_on("first_run_log", "logged_first_run_s")
def _logged(rows):
    """Where each default-config logged first run went, in one line: its longest stages by TensorFlow's log lines
    (three for the first variant, one for the others), else its Grappler passes' share."""
    each = []
    for r in rows:
        spans = sorted(logged_spans(r), key=lambda s: -s["seconds"])[:1 if each else 3]
        passes = [s for s in r.first_run_inside or () if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        if spans:
            each.append(f"{r.variant} {fmt_s(r.logged_first_run_s)}: "
                        + ", ".join(f"{s['stage']} {100 * s['seconds'] / r.logged_first_run_s:.0f}%" for s in spans))
        elif passes:
            spent = sum(s["seconds"] for s in passes)
            each.append(f"{r.variant} {fmt_s(r.logged_first_run_s)}: Grappler's passes {fmt_s(spent)} "
                        f"({100 * spent / r.logged_first_run_s:.0f}%)")
    if not each:
        return []
    return [f"Where each logged first run went, by TensorFlow's own log: {'; '.join(each[:3])}."]


@rests_on("partition_computes")
def _folded(rows):
    """The default-config variants whose graph that ran holds no Conv2D: folded before the first result."""
    folded = [r.variant for r in rows if not r.partition_computes["Conv2D"]]
    if not folded:
        return []
    return [f"Folded by default: the graph that ran holds no Conv2D in {join(folded)} (partition graphs)."]
