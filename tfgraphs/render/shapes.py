"""Render a shapes report: per-mode costs, the backend switch, per-length times, and why (no TensorFlow here)."""

from tabulate import tabulate

from tfgraphs.explain.shapes import cost, later_label, sentences, short_device, split
from tfgraphs.records.stats import STEADY_SHARE
from tfgraphs.render.page import failures, machine_line, page, time_unit
from tfgraphs.spec.modes import SWITCH_NAMES


def _align(headers):
    """Names left, numbers right."""
    return ("left",) + ("right",) * (len(headers) - 1)


def header(report):
    """One line naming what ran and where."""
    c = report.config
    last = c["start"] + c["count"] - 1
    return (f"shapes: lengths {c['start']:,}-{last:,} ({c['count']}), batch {c['batch']}, {c['channels']} channels -> "
            f"{c['filters']} filters, kernel {c['kernel']}, {c['dtype']}, block {c['block']:,}, {c['passes']} "
            f"pass{'es' if c['passes'] != 1 else ''}, seed {c['seed']} | {machine_line(report)}")


def _f(value, spec):
    """value formatted, or None (shown as '-')."""
    return None if value is None else format(value, spec)


def _decision(c, scale):
    """The cells behind the penalized rule: median paired difference, later IQR, lengths slower, the verdict."""
    e = c.penalty
    if e is None:
        return [None] * 4
    return [_f(e.delta / scale, "+.1f"), _f(e.spread / scale, ".1f"), f"{e.above}/{e.n}",
            "yes" if e.larger else "no"]


def _decision_headers(later, u):
    return [f"pass 1 - {later} {u}", f"{later} IQR {u}", "slower on", "penalized"]


def _unit(runs):
    return time_unit([s for r in runs for p in r.times_s for s in p])


def mode_table(report, fmt):
    """Per mode: device, traces, first call, median pass-1 and later call, throughput, and their ratio."""
    main, _ = split(report)
    ok = [r for r in main if r.ok]
    u, scale = _unit(ok)
    later = later_label(report)
    headers = ["mode", "device", "traces", f"first call {u}", f"pass 1 {u}", f"{later} {u}", "pass 1 kHz",
               f"{later} kHz", f"pass 1 / {later}", *_decision_headers(later, u)]
    body = []
    for r in ok:
        c = cost(r)
        body.append([r.mode, short_device(r.device), r.traces, _f(c.first_s / scale, ".1f"),
                     _f(c.new_s / scale, ".1f"), _f(c.seen_s and c.seen_s / scale, ".1f"), _f(c.new_khz, ",.0f"),
                     _f(c.seen_khz, ",.0f"), _f(c.ratio, ".2f"), *_decision(c, scale)])
    table = tabulate(body, headers, tablefmt=fmt, missingval="-", disable_numparse=True, colalign=_align(headers))
    legend = (f"Times in {u}, one call timed alone per length and pass, each mode in a fresh worker. first call = the "
              f"worker's very first call, start-up included: it is the first length's pass-1 call, so the first "
              f"length is left out of every other column, in every pass. pass 1 and {later} are medians over the "
              f"other lengths; kHz = batch x length / 1000 / s; pass 1 / {later} and pass 1 - {later} = medians over "
              f"lengths of the ratio and the difference for the same length; {later} IQR = the interquartile range "
              f"of {later}'s times; slower on = lengths whose pass 1 was the slower. penalized = yes when pass 1 - "
              f"{later} exceeds {later} IQR and pass 1 was the slower on at least {STEADY_SHARE:.0%} of lengths. "
              f"traces = tf.function traces (graph: graphs built). Every call takes and returns a NumPy array, so "
              f"copies in and out count alike.")
    return table, legend


def switch_table(report, fmt):
    """The switch modes with the device's per-shape switch on and off."""
    switch = report.extra.get("switch")
    main, off = split(report)
    pairs = [(on, o) for o in off if o.ok for on in main if on.ok and on.mode == o.mode]
    if not pairs:
        return None
    u, scale = _unit([r for pair in pairs for r in pair])
    later = later_label(report)
    headers = ["mode", switch, f"pass 1 {u}", f"{later} {u}", "pass 1 kHz", f"{later} kHz", f"pass 1 / {later}",
               *_decision_headers(later, u)]
    body = []
    for pair in pairs:
        for r in pair:
            c = cost(r)
            body.append([r.mode, r.env.get(switch), _f(c.new_s / scale, ".1f"),
                         _f(c.seen_s and c.seen_s / scale, ".1f"), _f(c.new_khz, ",.0f"), _f(c.seen_khz, ",.0f"),
                         _f(c.ratio, ".2f"), *_decision(c, scale)])
    table = tabulate(body, headers, tablefmt=fmt, missingval="-", disable_numparse=True, colalign=_align(headers))
    name = SWITCH_NAMES[switch]
    legend = (f"Each row a fresh worker with {switch} set before TensorFlow was imported: 1 = {name} on, 0 = off. "
              f"The other modes ran with it on. Columns as in Per mode, the first length left out likewise.")
    return table, legend


def length_table(report, fmt):
    """Every call's time: one row per length, one column per mode, passes separated by '/'."""
    main, _ = split(report)
    ok = [r for r in main if r.ok]
    u, scale = _unit(ok)
    c = report.config
    body = [[length] + ["/".join(f"{p[i] / scale:.1f}" for p in r.times_s) for r in ok]
            for i, length in enumerate(range(c["start"], c["start"] + c["count"]))]
    headers = ["length", *(r.mode for r in ok)]
    table = tabulate(body, headers, tablefmt=fmt, disable_numparse=True, colalign=("right",) * len(headers))
    passes = "/".join(f"pass {i + 1}" for i in range(min(c["passes"], 2))) + ("/..." if c["passes"] > 2 else "")
    legend = f"Per call in {u}: {passes}, in the order they ran."
    return table, legend


def mode_label(report):
    """A function naming a row: its mode, with the device's switch when this row ran with it off."""
    switch = report.extra.get("switch")
    return lambda r: r.mode + (f" [{switch}=0]" if switch and r.env.get(switch) == "0" else "")


def render(report, fmt="simple"):
    """The whole shapes report as text."""
    head, ok = header(report), any(r.ok for r in report.rows)
    sections = [("Per mode", mode_table(report, fmt)), ("Backend switch", switch_table(report, fmt)),
                ("Per length", length_table(report, fmt))] if ok else []
    return page(head, sections, "What this run shows:" if ok else None, sentences(report) if ok else (),
                failures(report.rows, mode_label(report)))
