"""Explain an unembed run from its own numbers: how much the GraphDef shrank, whether outputs match, what it cost."""

import statistics

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.records.judge import judge
from tfgraphs.units import fmt_bytes, fmt_s


@rests_on("before", "after")
def _size_sentence(u):
    b, a = u.before["graph_bytes"], u.after["graph_bytes"]
    if not u.moved:
        least = "--min-bytes" if u.min_bytes is None else f"{u.min_bytes:,} bytes"
        return [f"No Const outside a function body holds {least} or more, so nothing moved; the "
                f"SavedModel holds the same constants (lower --min-bytes to move smaller ones)."]
    k = len(u.moved)
    return [f"{k:,} Const{'s' if k != 1 else ''} ({u.moved_bytes:,} bytes) moved into variables restored from the "
            f"checkpoint: the GraphDef went from {b:,} to {a:,} bytes, {(1 - a / b) * 100:.6g}% smaller."]


@rests_on("within", "max_abs_err", "tolerance")
def _check_sentence(u):
    if u.within:
        return [f"The rewritten graph's outputs equal the original's on the same feeds: the largest absolute "
                f"difference is {u.max_abs_err:.3g} (tolerance {u.tolerance:.3g})."]
    return [f"The outputs DIFFER: the largest absolute difference is {u.max_abs_err:.3g}, above the tolerance of "
            f"{u.tolerance:.3g}."]


@rests_on("before", "after")
def _time_sentences(u):
    """First runs after against before, and later runs after against before: each side in its own fresh worker."""
    b, a = u.before, u.after
    if b["first_run_s"] is None or a["first_run_s"] is None or not b["runs_s"] or not a["runs_s"]:
        return []
    first = judge([a["first_run_s"]], [b["first_run_s"]])
    said = [judged(f"First run, after against before: {fmt_s(a['first_run_s'])} against {fmt_s(b['first_run_s'])}, "
                   f"{first.says(fmt_s)}: one first run a side, one per fresh worker (--runs repeats only the later "
                   f"runs).", first)]
    later = judge(a["runs_s"], b["runs_s"])
    said.append(judged(f"Later runs, after against before: a median {fmt_s(statistics.median(a['runs_s']))} against "
                       f"{fmt_s(statistics.median(b['runs_s']))}, {later.says(fmt_s)}.", later))
    if b["peak_rss_bytes"] and a["peak_rss_bytes"]:
        said.append(f"Peak RSS of the worker running the graph: {fmt_bytes(b['peak_rss_bytes'])} before, "
                    f"{fmt_bytes(a['peak_rss_bytes'])} after.")
    return said


def sentences(u):
    """What the numbers say about this rewrite; each sentence depends on them."""
    return _size_sentence(u) + _left(u) + _check_sentence(u) + _time_sentences(u) + _cost_sentences(u)


@rests_on("left", "min_bytes")
def _left(u):
    return [f"{len(u.left):,} Const{'s' if len(u.left) != 1 else ''} of at least {u.min_bytes:,} bytes inside "
            f"function bodies stayed in place ({sum(x['bytes'] for x in u.left):,} bytes)."]


# What each timed phase of the rewrite did, in the order it ran; assign_s only in documents from before the values
# were written straight to the checkpoint.
PHASES = (("read_s", "reading the graph"), ("rewrite_s", "rewriting it"),
          ("assign_s", "handing the values to the variables"), ("save_s", "writing the SavedModel and checkpoint"))


@rests_on("unembed_s")
def _cost_sentences(u):
    """What the rewrite itself cost: its time by phase, and its memory above TensorFlow's own, in graph sizes."""
    p = u.unembed_phases
    timed = [f"{what} {fmt_s(p[key])}" for key, what in PHASES if key in p]
    io = p.get("read_s", 0) + p.get("save_s", 0)
    said = [f"The rewrite took {fmt_s(u.unembed_s)}" + (
        f": {', '.join(timed)}; {u.unembed_s / io:.1f}x the time of the reading and writing alone."
        if {"read_s", "save_s"} <= set(p) and io > 0 else ".")]
    size, peak, base = u.before.get("graph_bytes"), u.unembed_peak_rss_bytes, u.tf_rss_bytes
    if peak and base and size:
        said.append(f"Its worker peaked at {fmt_bytes(peak)} RSS, {fmt_bytes(peak - base)} above the "
                    f"{fmt_bytes(base)} it held once TensorFlow was imported: {(peak - base) / size:.2f}x the "
                    f"{size:,}-byte GraphDef.")
    return said
