"""Explain a shapes report from its own numbers: what a new input length cost each mode, and why."""

import statistics
from dataclasses import dataclass

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import iqr, judge, median_or_none, paired, share_bounds
from tfgraphs.spec.shapes import AUTOTUNE, SWITCH_NAMES
from tfgraphs.units import fmt_s, join


@dataclass(frozen=True)
class Cost:
    """What a new length cost one run, over every length but the first (its first call is the worker's start-up)."""

    mode: str
    first_s: float            # the very first call in the worker, start-up included
    new: tuple                # pass-1 call of each length after the first
    seen: tuple | None        # median later-pass call of each length after the first (None with one pass)
    new_khz: float
    seen_khz: float | None

    @property
    def new_s(self):
        return statistics.median(self.new)

    @property
    def seen_s(self):
        return None if self.seen is None else statistics.median(self.seen)

    @property
    def ratio(self):
        """Median over lengths of pass 1 / later passes of the same length."""
        return None if self.seen is None else statistics.median(a / b for a, b in zip(self.new, self.seen))

    @property
    def differences(self):
        """Pass 1 minus the later passes, length by length."""
        return None if self.seen is None else tuple(a - b for a, b in zip(self.new, self.seen))

    @property
    def penalty(self):
        """Pass 1 against the later passes, length by length, by the rule for paired samples."""
        return None if self.seen is None else paired(self.new, self.seen)

    @property
    def extra_s(self):
        """Time a new length added to one call: the median paired difference."""
        return None if self.seen is None else self.penalty.delta

    @property
    def penalized(self):
        return self.seen is not None and self.penalty.larger


def cost(run):
    """The Cost of one ok ModeRun."""
    first, later = run.times_s[0], run.times_s[1:]
    seen = tuple(statistics.median(p[i] for p in later) for i in range(1, len(first))) if later else None
    return Cost(run.mode, first[0], tuple(first[1:]), seen, run.khz[0],
                median_or_none(run.khz[1:]) if later else None)


def split(report):
    """(main runs, runs with the device's switch off)."""
    switch = report.extra.get("switch")
    off = [r for r in report.rows if switch and r.env.get(switch) == "0"]
    return [r for r in report.rows if r not in off], off


def short_device(name):
    """"/job:localhost/replica:0/task:0/device:CPU:0" -> "CPU:0"."""
    return None if not name else name.rsplit("device:", 1)[-1]


def _signed(seconds):
    """A duration with its sign: "+1.2 ms", "-0.4 ms"."""
    return ("-" if seconds < 0 else "+") + fmt_s(abs(seconds))


def later_label(report):
    """What the passes after the first are called in tables and sentences."""
    return "pass 2" if report.config["passes"] == 2 else "later passes"


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    main, off = split(report)
    ok = [r for r in main if r.ok]
    if not ok:
        return ["No mode produced a result, so there is nothing to explain."]
    said = _devices(report, ok)
    if all(c.ratio is None for c in costs_by_mode(ok).values()):
        return said + ["With one pass no length was seen twice, so the per-new-length cost cannot be measured; "
                       "run with --passes 2 or more."]
    said += _penalties(report, ok)
    said += _tracing(report, ok)
    said += _retracing(ok)
    said += _remedy(report, ok)
    said += _switch(report, ok, [r for r in off if r.ok])
    said += _first_call(ok)
    worst = max(r.max_rel_err for r in ok + [r for r in off if r.ok])
    every = "Every mode" if all(r.ok for r in report.rows) else "Every mode that finished"
    said.append(f"{every} matched a float64 NumPy reference to {worst:.1e} relative error or better.")
    return said


def costs_by_mode(ok):
    """The Cost of every mode timed on at least one length after the first."""
    return {r.mode: cost(r) for r in ok if r.times_s and r.khz and len(r.times_s[0]) > 1}


@rests_on("device")
def _devices(report, ok):
    if not ok:
        return []
    devices = sorted({short_device(r.device) or "?" for r in ok})
    where = f"every mode ran on {devices[0]}" if len(devices) == 1 else f"the modes ran on {join(devices)}"
    if report.extra.get("switch") == AUTOTUNE:
        return [f"A GPU was visible and {where}; cuDNN autotuning is likely to apply to the convolutions placed on "
                f"it (not measured on a GPU by this tool)."]
    return [f"No GPU was visible and {where}, so cuDNN autotuning does not apply here."]


@rests_on("times_s", "khz")
def _penalties(report, ok):
    costs, later, said = costs_by_mode(ok), later_label(report), []
    for c in sorted((c for c in costs.values() if c.penalized), key=lambda c: -c.ratio):
        e = c.penalty
        said.append(f"Pass 1 was {c.ratio:.2f}x slower than {later} in {c.mode} (median over {e.n} lengths) and "
                    f"slower on {e.above} of them: each new length added {fmt_s(e.delta)} to a {fmt_s(c.seen_s)} "
                    f"call, beyond the {fmt_s(e.spread)} IQR of {later} itself.")
    flat = [c for c in costs.values() if c.penalty is not None and not c.penalized]
    if flat:
        said.append("A new length cost nothing measurable by the rule in the legend in " + join(
            f"{c.mode} ({_signed(c.extra_s)} against an IQR of {fmt_s(c.penalty.spread)}, slower on "
            f"{c.penalty.above} of {c.penalty.n} lengths)" for c in flat) + ".")
    return said


@rests_on("traces")
def _tracing(report, ok):
    n, said = report.config["count"], []
    traced = [r for r in ok if r.traces is not None and r.mode != "graph"]
    if traced:
        parts = [f"{r.mode} {r.traces} time{'s' if r.traces != 1 else ''}" for r in traced]
        said.append(f"For {n} distinct lengths, tf.function traced " + join(parts) + ".")
    graph = next((r for r in ok if r.mode == "graph" and r.traces is not None), None)
    if graph is not None and graph.traces == 1:
        said.append(f"graph built {graph.traces} graph with a [None, None, {report.config['channels']}] placeholder "
                    f"and ran all {n} lengths in it.")
    elif graph is not None:
        said.append(f"graph built {graph.traces} graphs for {n} distinct lengths.")
    return said


@rests_on("traces", "times_s", "khz")
def _retracing(ok):
    """How much of function's new-length cost retracing explains, when function-signature traced just once."""
    costs = costs_by_mode(ok)
    f, s = costs.get("function"), costs.get("function-signature")
    traces = {r.mode: r.traces for r in ok}
    once, many = traces.get("function-signature"), traces.get("function")
    # The two differ by retracing alone only if function-signature traced once and function more than that.
    if not (f and s and f.penalized and f.extra_s > 0 and once == 1 and many is not None and many > once):
        return []
    if paired(f.new, s.new).larger:
        # Two workers: their own IQRs and the gap between their steady states bound what the subtraction says.
        noise = max(f.penalty.spread, s.penalty.spread, abs(f.seen_s - s.seen_s))
        return [f"function's pass-1 call took {fmt_s(f.new_s)} against {fmt_s(s.new_s)} for function-signature, "
                f"which traced {once} time to function's {many}: retracing explains "
                f"{_portion(f.new_s - s.new_s, f.extra_s, noise)} of function's new-length cost (judged against "
                f"{fmt_s(noise)}, the larger of the two workers' IQRs and the gap between their steady states)."]
    return [f"function-signature traced {once} time to function's {many}, yet its pass-1 call took "
            f"{fmt_s(s.new_s)} against {fmt_s(f.new_s)} for function, no clear difference by the rule in the legend: "
            f"the new-length cost is not retracing."]


def _portion(part, whole, *spreads):
    """'all', '86%' or, within the spreads, '70% to 100%': how much of whole the part is."""
    lo, hi = (min(x, 1.0) for x in share_bounds(part, whole, *spreads))
    if lo == hi:
        return "all" if lo >= 1 else f"{lo:.0%}"
    return f"{lo:.0%} to {hi:.0%}"


@rests_on("times_s", "khz")
def _remedy(report, ok):
    costs = costs_by_mode(ok)
    b = costs.get("blocked")
    others = [c for c in costs.values() if c.mode != "blocked" and c.penalty is not None]
    if b is None or b.penalty is None or not others:
        return []
    paid = [c for c in others if c.penalized]
    ref = max(paid or others, key=lambda c: c.ratio)
    later, block = later_label(report), report.config["block"]
    change = b.seen_khz / ref.seen_khz - 1
    rates = f"({later}: {b.seen_khz:,.0f} kHz in blocked, {ref.seen_khz:,.0f} in {ref.mode})"
    # Two workers: a percentage only when their calls on the same lengths differ steadily beyond the IQR.
    if paired(b.seen, ref.seen).larger or paired(ref.seen, b.seen).larger:
        price = f"its throughput on lengths already seen was {abs(change):.0%} {'lower' if change < 0 else 'higher'} {rates}"
    else:
        price = f"its throughput on lengths already seen showed no measurable difference by the same rule {rates}"
    most = f", the most of the {len(paid)} modes that paid for new lengths" if len(paid) > 1 else ""
    head = f"Pass 1 was {ref.ratio:.2f}x slower than {later} in {ref.mode}{most}"
    if not paid:
        said = [f"No mode paid measurably for new lengths, so blocked (blocks of {block}) had no penalty to "
                f"remove; {price}."]
    elif not b.penalized:
        said = [f"{head}; blocked (blocks of {block}, a fixed input signature and a fixed shape) paid no measurable "
                f"penalty: a new length changed its call by {_signed(b.extra_s)}, against {fmt_s(ref.extra_s)} in "
                f"{ref.mode}, and {price}." + "".join(_signature_alone(ok, ref.mode))]
    elif b.extra_s >= ref.extra_s:
        said = [f"{head}, and blocked (blocks of {block}) did not remove that penalty: a new length added "
                f"{fmt_s(b.extra_s)} to it against {fmt_s(ref.extra_s)}; {price}."]
    else:
        removed = _portion(ref.extra_s - b.extra_s, ref.extra_s, b.penalty.spread, ref.penalty.spread)
        said = [f"{head}; blocked (blocks of {block}) removed {removed} of that penalty "
                f"({fmt_s(ref.extra_s)} -> {fmt_s(b.extra_s)} per new length) but still paid measurably (beyond its "
                f"own IQR of {fmt_s(b.penalty.spread)}, slower on {b.penalty.above} of {b.penalty.n} lengths), and "
                f"{price}." + "".join(_signature_alone(ok, ref.mode))]
    said.append(f"On lengths seen for the first time, blocked ran at {b.new_khz:,.0f} kHz against "
                f"{ref.new_khz:,.0f} kHz for {ref.mode} ({b.new_khz / ref.new_khz:.2f}x).")
    return said


@rests_on("traces", "times_s", "khz")
def _signature_alone(ok, mode):
    """blocked fixes both the input signature and the block's shape; function-signature fixes the signature alone,
    so the two effects are told apart by it, with its trace count."""
    costs, traced = costs_by_mode(ok), {r.mode: r.traces for r in ok}
    sig, ref = costs.get("function-signature"), costs.get(mode)
    if sig is None or sig.penalty is None or ref is None or traced.get("function-signature") is None or sig is ref:
        return []
    head = (f" function-signature, which fixes only the input signature (it traced {traced['function-signature']} "
            f"time{'s' if traced['function-signature'] != 1 else ''}), ")
    if not sig.penalized:
        return [head + (f"paid nothing measurable per new length by the paired rule ({_signed(sig.extra_s)} against "
                       f"its own IQR of {fmt_s(sig.penalty.spread)}, slower on {sig.penalty.above} of "
                       f"{sig.penalty.n} lengths): the fixed signature alone removed {ref.mode}'s penalty in this "
                       f"run.")]
    alone = _portion(ref.extra_s - sig.extra_s, ref.extra_s, sig.penalty.spread, ref.penalty.spread)
    return [head + (f"still paid {fmt_s(sig.extra_s)} per new length: the signature alone removed {alone} of "
                   f"{ref.mode}'s penalty, the fixed block shape the rest that blocked removed.")]


@rests_on("times_s", "khz", "env")
def _switch(report, ok, off):
    switch = report.extra.get("switch")
    if switch is None:
        return []
    name = SWITCH_NAMES[switch]
    if not report.config.get("switch_modes"):
        return [f"{name} was not switched off in this run (no --switch-modes)."]
    later, said = later_label(report), []
    untested = " (this GPU path is untested)" if switch == AUTOTUNE else ""
    for r_off in off:
        r_on = next((r for r in ok if r.mode == r_off.mode), None)
        if r_on is None:
            continue
        on, of = cost(r_on), cost(r_off)
        said.append(f"{name} in {r_on.mode}{untested}: pass 1 / {later} was {on.ratio:.2f}x with {switch}=1 and "
                    f"{of.ratio:.2f}x with {switch}=0; a new length changed a call by {_signed(on.extra_s)} with it "
                    f"on and {_signed(of.extra_s)} with it off.")
        if on.penalized and paired(on.differences, of.differences).larger:
            said.append(f"So {name} accounts for about {fmt_s(on.extra_s - max(of.extra_s, 0.0))} of each new "
                        f"length's cost in {r_on.mode}.")
        elif not on.penalized and not of.penalized:
            said.append(f"Neither setting paid measurably for new lengths in {r_on.mode}: {name}'s per-shape "
                        f"cost is within noise by the rule in the legend.")
        speed = on.seen_khz / of.seen_khz
        said.append(f"On lengths already seen, {r_on.mode} ran at {on.seen_khz:,.0f} kHz with {name} on and "
                    f"{of.seen_khz:,.0f} kHz with it off ({speed:.2f}x).")
    return said


@rests_on("times_s", "khz")
def _first_call(ok):
    firsts = sorted(costs_by_mode(ok).values(), key=lambda c: c.first_s / c.new_s)
    if not firsts:
        return []
    worst = firsts[-1]
    if not judge(worst.first_s - worst.new_s, iqr(worst.new)).larger:
        return []
    low, high = min(c.first_s for c in firsts), max(c.first_s for c in firsts)
    took = fmt_s(high) if len(firsts) == 1 else f"{fmt_s(low)} to {fmt_s(high)}"
    return [f"The very first call in {'the' if len(firsts) == 1 else 'each'} worker took {took}, up to "
            f"{worst.first_s / worst.new_s:.1f}x a median pass-1 call ({worst.mode}): a one-time start-up cost, "
            f"not a per-length one, so the first length is left out of the per-length statistics."]
