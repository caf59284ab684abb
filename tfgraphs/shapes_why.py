"""Explain a shapes report from its own numbers: what a new input length cost each mode, and why."""

from dataclasses import dataclass

from tfgraphs.shapes import AUTOTUNE, ONEDNN
from tfgraphs.stats import median_or_none
from tfgraphs.units import fmt_s, join

# Pass 1 / later passes below this is treated as noise: a new length cost nothing measurable.
NOISE = 1.2
SWITCH_NAMES = {ONEDNN: "oneDNN", AUTOTUNE: "cuDNN autotuning"}


@dataclass(frozen=True)
class Cost:
    """What a new length cost one run: medians over lengths of pass 1 and of the later passes."""

    mode: str
    first_s: float            # the very first call in the worker, start-up included
    new_s: float              # median pass-1 call
    seen_s: float | None      # median call in later passes (None with one pass)
    ratio: float | None       # median over lengths of pass 1 / later passes of the same length
    new_khz: float
    seen_khz: float | None

    @property
    def extra_s(self):
        """Time a new length added to one call."""
        return None if self.seen_s is None else self.new_s - self.seen_s

    @property
    def penalized(self):
        return self.ratio is not None and self.ratio >= NOISE


def cost(run):
    """The Cost of one ok ModeRun."""
    first, later = run.times_s[0], run.times_s[1:]
    seen = [median_or_none(p[i] for p in later) for i in range(len(first))] if later else None
    return Cost(run.mode, first[0], median_or_none(first),
                median_or_none(s for p in later for s in p) if later else None,
                median_or_none(a / b for a, b in zip(first, seen)) if later else None,
                run.khz[0], median_or_none(run.khz[1:]) if later else None)


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


def _later(report):
    return "pass 2" if report.config.get("passes", 2) == 2 else "the later passes"


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    main, off = split(report)
    ok = [r for r in main if r.ok]
    if not ok:
        return ["No mode produced a result, so there is nothing to explain."]
    costs = {r.mode: cost(r) for r in ok}
    said = [_devices(report, ok)]
    if all(c.ratio is None for c in costs.values()):
        return said + ["With one pass no length was seen twice, so the per-new-length cost cannot be measured; "
                       "run with --passes 2 or more."]
    said += _penalties(report, costs)
    said += _tracing(report, ok, costs)
    said += _remedy(report, costs)
    said += _switch(report, ok, [r for r in off if r.ok])
    said += _first_call(costs, report.config["count"])
    worst = max(r.max_rel_err for r in ok + [r for r in off if r.ok])
    every = "Every mode" if all(r.ok for r in report.rows) else "Every mode that finished"
    said.append(f"{every} matched a float64 NumPy reference to {worst:.1e} relative error or better.")
    return said


def _devices(report, ok):
    devices = sorted({short_device(r.device) or "?" for r in ok})
    where = f"every mode ran on {devices[0]}" if len(devices) == 1 else f"the modes ran on {join(devices)}"
    if report.extra.get("switch") == AUTOTUNE:
        return f"A GPU was visible and {where}; cuDNN autotuning applies to the convolutions placed on it."
    return f"No GPU was visible and {where}, so cuDNN autotuning does not apply here."


def _penalties(report, costs):
    later, n = _later(report), report.config["count"]
    said = []
    for c in sorted((c for c in costs.values() if c.penalized), key=lambda c: -c.ratio):
        said.append(f"Pass 1 was {c.ratio:.2f}x slower than {later} in {c.mode} (median over {n} lengths): "
                    f"each new length added {fmt_s(c.extra_s)} to a {fmt_s(c.seen_s)} call.")
    flat = [c for c in costs.values() if c.ratio is not None and not c.penalized]
    if flat:
        low, high = min(c.ratio for c in flat), max(c.ratio for c in flat)
        span = f"{low:.2f}x" if len(flat) == 1 else f"{low:.2f}x to {high:.2f}x"
        said.append(f"In {join(c.mode for c in flat)} pass 1 / {later} was {span}, under the {NOISE:.1f}x "
                    f"taken as noise: a new length cost nothing measurable.")
    return said


def _tracing(report, ok, costs):
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
    said += _retracing(ok, costs)
    return said


def _retracing(ok, costs):
    """How much of function's new-length cost retracing explains, when function-signature traced just once."""
    f, s = costs.get("function"), costs.get("function-signature")
    traces = {r.mode: r.traces for r in ok}
    once, many = traces.get("function-signature"), traces.get("function")
    # The two differ by retracing alone only if function-signature traced once and function more than that.
    if not (f and s and f.penalized and f.extra_s > 0 and once == 1 and many is not None and many > once):
        return []
    if f.new_s / s.new_s >= NOISE:
        share = (f.new_s - s.new_s) / f.extra_s
        return [f"function's pass-1 call took {fmt_s(f.new_s)} against {fmt_s(s.new_s)} for function-signature, "
                f"which traced {once} time to function's {many}: retracing explains "
                f"{'all' if share >= 1 else format(share, '.0%')} of function's new-length cost."]
    return [f"function-signature traced {once} time to function's {many}, yet its pass-1 call took "
            f"{fmt_s(s.new_s)} against {fmt_s(f.new_s)} for function: the new-length cost is not retracing."]


def _remedy(report, costs):
    b = costs.get("blocked")
    others = [c for c in costs.values() if c.mode != "blocked" and c.ratio is not None]
    if b is None or b.ratio is None or not others:
        return []
    ref = max(others, key=lambda c: c.ratio)
    later, block = _later(report), report.config["block"]
    change = b.seen_khz / ref.seen_khz - 1
    price = (f"its throughput on lengths already seen was {abs(change):.0%} {'lower' if change < 0 else 'higher'} "
             f"({later}: {b.seen_khz:,.0f} kHz in blocked, {ref.seen_khz:,.0f} in {ref.mode})")
    if not ref.penalized:
        said = [f"No mode paid measurably for new lengths, so blocked (blocks of {block}) had no penalty to "
                f"remove; {price}."]
    elif b.extra_s >= ref.extra_s:
        said = [f"Pass 1 was {ref.ratio:.2f}x slower than {later} in {ref.mode}, and blocked (blocks of {block}) "
                f"did not remove that penalty: a new length added {fmt_s(b.extra_s)} to it against "
                f"{fmt_s(ref.extra_s)}; {price}."]
    else:
        removed = 1 - max(b.extra_s, 0.0) / ref.extra_s
        said = [f"Pass 1 was {ref.ratio:.2f}x slower than {later} in {ref.mode}; blocked (blocks of {block}) "
                f"removed {removed:.0%} of that penalty ({fmt_s(ref.extra_s)} -> {fmt_s(max(b.extra_s, 0.0))} "
                f"per new length), and {price}."]
    said.append(f"On lengths seen for the first time, as when serving audio of arbitrary length, blocked ran at "
                f"{b.new_khz:,.0f} kHz against {ref.new_khz:,.0f} kHz for {ref.mode} ({b.new_khz / ref.new_khz:.2f}x).")
    return said


def _switch(report, ok, off):
    switch = report.extra.get("switch")
    if switch is None:
        return []
    name = SWITCH_NAMES[switch]
    if not report.config.get("switch_modes"):
        return [f"{name} was not switched off in this run (no --switch-modes)."]
    later, said = _later(report), []
    untested = " (this GPU path is untested)" if switch == AUTOTUNE else ""
    for r_off in off:
        r_on = next((r for r in ok if r.mode == r_off.mode), None)
        if r_on is None:
            continue
        on, of = cost(r_on), cost(r_off)
        said.append(f"{name} in {r_on.mode}{untested}: pass 1 / {later} was {on.ratio:.2f}x with {switch}=1 and "
                    f"{of.ratio:.2f}x with {switch}=0; a new length changed a call by {_signed(on.extra_s)} with it "
                    f"on and {_signed(of.extra_s)} with it off.")
        if on.penalized and on.extra_s > of.extra_s and on.ratio / max(of.ratio, 1e-9) >= NOISE:
            said.append(f"So {name} accounts for about {fmt_s(on.extra_s - max(of.extra_s, 0.0))} of each new "
                        f"length's cost in {r_on.mode}.")
        elif not on.penalized and not of.penalized:
            said.append(f"Neither setting paid measurably for new lengths in {r_on.mode}: {name}'s per-shape "
                        f"cost is within noise here.")
        speed = on.seen_khz / of.seen_khz
        said.append(f"On lengths already seen, {r_on.mode} ran at {on.seen_khz:,.0f} kHz with {name} on and "
                    f"{of.seen_khz:,.0f} kHz with it off ({speed:.2f}x).")
    return said


def _first_call(costs, count):
    firsts = sorted(costs.values(), key=lambda c: c.first_s / c.new_s)
    worst = firsts[-1]
    if worst.first_s / worst.new_s < NOISE:
        return []
    low, high = min(c.first_s for c in firsts), max(c.first_s for c in firsts)
    took = fmt_s(high) if len(firsts) == 1 else f"{fmt_s(low)} to {fmt_s(high)}"
    return [f"The very first call in {'the' if len(firsts) == 1 else 'each'} worker took {took}, up to "
            f"{worst.first_s / worst.new_s:.1f}x a median pass-1 call ({worst.mode}): a one-time start-up cost, "
            f"not a per-length one, and 1 of the {count} pass-1 calls each median is taken over."]
