"""What an unembed run tells a reader, declared as data: how much the GraphDef shrank, whether outputs match, what it
cost, each from the run's own numbers."""

import statistics

from tfgraphs.findings.evidence import Finding, Record, on_record, judged, said_by
from tfgraphs.records.judge import judge
from tfgraphs.units import fmt_bytes, fmt_s


def _size_sentence(u):
    b, a = u.before["graph_bytes"], u.after["graph_bytes"]
    if not u.moved:
        least = "--min-bytes" if u.min_bytes is None else f"{u.min_bytes:,} bytes"
        return [f"No Const outside a function body holds {least} or more, so nothing moved; the "
                f"SavedModel holds the same constants (lower --min-bytes to move smaller ones)."]
    k = len(u.moved)
    return [f"{k:,} Const{'s' if k != 1 else ''} ({u.moved_bytes:,} bytes) moved into variables restored from the "
            f"checkpoint: the GraphDef went from {b:,} to {a:,} bytes, {(1 - a / b) * 100:.6g}% smaller."]


def _check_sentence(u):
    if u.within:
        return [f"The rewritten graph's outputs equal the original's on the same feeds: the largest absolute "
                f"difference is {u.max_abs_err:.3g} (tolerance {u.tolerance:.3g})."]
    return [f"The outputs DIFFER: the largest absolute difference is {u.max_abs_err:.3g}, above the tolerance of "
            f"{u.tolerance:.3g}."]


def _time_sentences(u):
    """First runs after against before, and later runs after against before: each side in its own fresh worker."""
    b, a = u.before, u.after
    first = judge([a["first_run_s"]], [b["first_run_s"]])
    said = [judged(f"First run, after against before: {fmt_s(a['first_run_s'])} against {fmt_s(b['first_run_s'])}, "
                   f"{first.says(fmt_s)}: one first run a side, one per fresh worker (--runs repeats only the later "
                   f"runs).", first)]
    later = judge(a["runs_s"], b["runs_s"])
    said.append(judged(f"Later runs, after against before: a median {fmt_s(statistics.median(a['runs_s']))} against "
                       f"{fmt_s(statistics.median(b['runs_s']))}, {later.says(fmt_s)}.", later))
    return said


def _timed(u):
    """True when both sides ran a first run and later runs."""
    b, a = u.before, u.after
    return not (b["first_run_s"] is None or a["first_run_s"] is None or not b["runs_s"] or not a["runs_s"])


def _peaks(u):
    return [f"Peak RSS of the worker running the graph: {fmt_bytes(u.before['peak_rss_bytes'])} before, "
            f"{fmt_bytes(u.after['peak_rss_bytes'])} after."]


def _left(u):
    return [f"{len(u.left):,} Const{'s' if len(u.left) != 1 else ''} of at least {u.min_bytes:,} bytes inside "
            f"function bodies stayed in place ({sum(x['bytes'] for x in u.left):,} bytes)."]


# What each timed phase of the rewrite did, in the order it ran; assign_s only in documents from before the values
# were written straight to the checkpoint.
PHASES = (("read_s", "reading the graph"), ("rewrite_s", "rewriting it"),
          ("assign_s", "handing the values to the variables"), ("save_s", "writing the SavedModel and checkpoint"))


def _cost_sentences(u):
    """What the rewrite itself cost: its time by phase."""
    p = u.unembed_phases
    timed = [f"{what} {fmt_s(p[key])}" for key, what in PHASES if key in p]
    io = p.get("read_s", 0) + p.get("save_s", 0)
    return [f"The rewrite took {fmt_s(u.unembed_s)}" + (
        f": {', '.join(timed)}; {u.unembed_s / io:.1f}x the time of the reading and writing alone."
        if {"read_s", "save_s"} <= set(p) and io > 0 else ".")]


def _cost_memory(u):
    """The rewrite's memory above TensorFlow's own, in graph sizes."""
    size, peak, base = u.before.get("graph_bytes"), u.unembed_peak_rss_bytes, u.tf_rss_bytes
    return [f"Its worker peaked at {fmt_bytes(peak)} RSS, {fmt_bytes(peak - base)} above the {fmt_bytes(base)} it "
            f"held once TensorFlow was imported: {(peak - base) / size:.2f}x the {size:,}-byte GraphDef."]


DECLARED = (
    Finding("unembed.size", ("before", "after"), lambda v: True, on_record(_size_sentence), False,
            "{n} Consts ({bytes} bytes) moved into variables restored from the checkpoint: the GraphDef went from "
            "{bytes} to {bytes} bytes, {share} smaller. / No Const outside a function body holds {bytes} or more, so "
            "nothing moved; ...", "the rewrite measured no graph before and after"),
    Finding("unembed.left", ("left", "min_bytes"), lambda v: True, on_record(_left), False,
            "{n} Consts of at least {bytes} bytes inside function bodies stayed in place ({bytes} bytes).",
            "no Const of that size is inside a function body"),
    Finding("unembed.check", ("within", "max_abs_err", "tolerance"), lambda v: True, on_record(_check_sentence), False,
            "The rewritten graph's outputs equal the original's on the same feeds: the largest absolute difference is "
            "{n} (tolerance {n}). / The outputs DIFFER: ...", "the outputs were not compared (--no-check)"),
    Finding("unembed.times", ("before", "after"), lambda v: _timed(v.record), on_record(_time_sentences), False,
            "First run, after against before: {time} against {time}, {verdict}: one first run a side, ... / Later "
            "runs, after against before: a median {time} against {time}, {verdict}.",
            "either graph lacks a timed first run or later runs"),
    Finding("unembed.peak_rss", ("before", "after"),
            lambda v: _timed(v.record) and v.record.before["peak_rss_bytes"] and v.record.after["peak_rss_bytes"],
            on_record(_peaks), False, "Peak RSS of the worker running the graph: {bytes} before, {bytes} after.",
            "either graph lacks a timed run or a measured peak"),
    Finding("unembed.cost", ("unembed_s",), lambda v: True, on_record(_cost_sentences), False,
            "The rewrite took {time}: reading the graph {time}, rewriting it {time}, ...; {ratio}x the time of the "
            "reading and writing alone.", "the rewrite was not timed"),
    Finding("unembed.cost_memory", ("unembed_s",),
            lambda v: v.record.unembed_peak_rss_bytes and v.record.tf_rss_bytes and v.record.before.get("graph_bytes"),
            on_record(_cost_memory), False,
            "Its worker peaked at {bytes} RSS, {bytes} above the {bytes} it held once TensorFlow was imported: "
            "{ratio}x the {bytes}-byte GraphDef.", "the rewrite's worker did not measure its memory"),
)


def told(u):
    """(no answer block, the findings) of one rewrite."""
    return [], said_by(DECLARED, Record(u))


def sentences(u):
    """What the numbers say about this rewrite; each sentence depends on them."""
    return told(u)[1]
