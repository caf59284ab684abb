"""The shapes page: per-mode costs, the backend switch, per-length times, and why (no TensorFlow here)."""

from tfgraphs.findings.shapes import answer_and_findings
from tfgraphs.findings.shapes import later_label, short_device
from tfgraphs.records.shapes import control_verdict, costs_by_mode, first_workers, new_khz, run_cost, seen_khz, split
from tfgraphs.records.judge import DISTURBED, SIGNED_RANK, ratio_text
from tfgraphs.spec.options import FEWEST
from tfgraphs.render.page import WIDTH, Table, failures, machine_line, page, time_unit
from tfgraphs.spec.shapes import SWITCH_NAMES
from tfgraphs.units import sig3


def header(results):
    """What ran, then where."""
    c = results.config
    last = c.start + c.count - 1
    return (f"shapes: lengths {c.start:,}-{last:,} ({c.count}), batch {c.batch}, {c.channels} channels -> "
            f"{c.filters} filters, kernel {c.kernel}, {c.dtype}, block {c.block:,}, {c.passes} "
            f"pass{'es' if c.passes != 1 else ''}, seed {c.seed}\n{machine_line(results)}")


def _f(value, spec):
    """value formatted, or None (shown as '-')."""
    return None if value is None else format(value, spec)


def _decision(c):
    """The judge's cells for pass 1 against the later passes: the paired ratio, its 95% CI, p and the outcome."""
    v = c.penalty
    if v is None:
        return [None] * 5
    outcome = v.outcome
    if v.outcome == DISTURBED:   # a ratio from a moving machine is not shown
        return [None, None, None, f"{v.n_a}", outcome]
    interval = v.ends() if v.bounded else "none at this n"
    p = None if v.p is None else "<0.001" if v.p < 0.001 else f"{v.p:.2g}"
    return [ratio_text(v.effect), interval, p, f"{v.n_a}", outcome]


def _decision_headers(later):
    return [f"pass 1 / {later}", "95% CI", "p", "pairs", "verdict"]


def _unit(runs):
    return time_unit([s for r in runs for p in r.times_s for s in p])


def mode_table(results):
    """Per mode (its first worker): device, traces, first call, median pass-1 and later call, throughput, and their
    ratio."""
    main, _ = split(results)
    ok = list(first_workers(main))
    u, scale = _unit(ok)
    later = later_label(results)
    headers = ["mode", "device", "traces", "first call", "pass 1", later, "pass 1 kHz",
               f"{later} kHz", *_decision_headers(later)]
    body = []
    costs = costs_by_mode(results, ok)
    for r in ok:
        c = costs.get(r.mode) or run_cost(results, r)
        body.append((r.mode, short_device(r.device), _f(r.traces, "d"), sig3(c.first_s / scale),
                     sig3(c.new_s / scale), sig3(c.seen_s and c.seen_s / scale), _f(new_khz(c), ",.0f"),
                     _f(seen_khz(c), ",.0f"), *_decision(c)))
    table = Table(tuple(headers), tuple(body))
    each = f" (s of {later}: that length's median over them)" if results.config.passes > 2 else ""
    legend = (f"Times in {u}, one call timed alone per length and pass, {_workers(results)}. first call = the "
              f"worker's very first call, start-up included: it is the first length's pass-1 call, so the first "
              f"length is left out of every other column, in every pass. pass 1 and {later} are medians over the "
              f"other lengths; kHz = batch x length / 1000 / s of each length{each}, the "
              f"median over the lengths, so not batch x length over the ms column. "
              f"{_verdict_legend(later)} "
              f"traces = tf.function traces (graph: graphs built). Every call takes and returns a NumPy array, so "
              f"copies in and out count alike.")
    return table, legend, u


def _workers(results):
    """'each mode in a fresh worker', or which of several workers a mode's row shows."""
    k = results.config.trials
    return "each mode in a fresh worker" if k == 1 else f"each mode in {k} fresh workers, the first of them shown"


def _verdict_legend(later):
    return (f"pass 1 / {later}: the judge's paired estimate (Wilcoxon signed-rank, Hodges-Lehmann) of pass 1's time "
            f"over {later}'s for the same length, with its 95% CI, p and the pairs (lengths) it rests on, each mode "
            f"alone (the answer above judges them together, Holm); verdict = "
            f"differs, no difference (the CI inside x0.8 to x1.25), cannot tell (the test needs "
            f"{FEWEST[SIGNED_RANK]} pairs to find a difference) or disturbed run. The control is blocked's pass 2 "
            f"against its pass 3, paired by length: the same fixed-shape work on lengths already seen, which must "
            f"not differ; when it does, every verdict is disturbed run and no ratio is shown.")


def switch_table(results):
    """The switch modes with the device's per-shape switch on and off."""
    switch = results.switch
    main, off = split(results)
    pairs = [(on, o) for o in first_workers(off) for on in first_workers(main) if on.mode == o.mode]
    if not pairs:
        return None
    u, scale = _unit([r for pair in pairs for r in pair])
    later = later_label(results)
    headers = ["mode", switch, "pass 1", later, "pass 1 kHz", f"{later} kHz", *_decision_headers(later)]
    body = []
    guard = control_verdict(results, [r for r in main if r.ok])
    for pair in pairs:
        for r in pair:
            c = run_cost(results, r, guard)
            body.append((r.mode, r.env.get(switch), sig3(c.new_s / scale), sig3(c.seen_s and c.seen_s / scale),
                         _f(new_khz(c), ",.0f"), _f(seen_khz(c), ",.0f"), *_decision(c)))
    table = Table(tuple(headers), tuple(body), keys=2)
    name = SWITCH_NAMES[switch]
    legend = (f"Times in {u}. Each row a fresh worker with {switch} set before TensorFlow was imported: 1 = {name} "
              f"on, 0 = off. The other modes ran with it on. Columns as in Per mode, the first length left out "
              f"likewise.")
    return table, legend, u


def length_table(results):
    """Every call's time: one row per length, one column per mode (its first worker), passes separated by '/'."""
    main, _ = split(results)
    ok = list(first_workers(main))
    u, scale = _unit(ok)
    c = results.config
    body = tuple((f"{length:,}", *("/".join(sig3(p[i] / scale) for p in r.times_s) for r in ok))
                 for i, length in enumerate(c.lengths))
    table = Table(("length", *(r.mode for r in ok)), body)
    passes = "/".join(f"pass {i + 1}" for i in range(min(c.passes, 2))) + ("/..." if c.passes > 2 else "")
    order = ("The passes ran interleaved: pass 1 of a length, then pass 2 of the length before it, and so on."
             if results.order == "interleaved" else "The passes ran one after the other, each over "
             "every length.")
    legend = f"Per call in {u}: {passes}. {order}"
    return table, legend, u


def mode_label(results):
    """A function naming a row: its mode, with the device's switch when this row ran with it off."""
    switch = results.switch
    return lambda r: r.mode + (f" [{switch}=0]" if switch and r.env.get(switch) == "0" else "")


def render(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The shapes page of results, as text, fitted to width (None: one wide table per section)."""
    head, ok = header(results), any(r.ok for r in results.rows)
    sections = []
    for title, made in (("Per mode", mode_table), ("Backend switch", switch_table), ("Per length", length_table)):
        found = made(results) if ok else None
        if found is not None:
            table, legend, u = found
            sections.append((f"{title} ({u})", table, legend))
    headline, findings = answer_and_findings(results)
    return page(head, sections, "What this run shows:" if ok else None, findings if ok else (),
                failures(results.rows, mode_label(results)), fmt, width,
                answer=headline if ok else (), verbose=verbose, figure=figure)
