"""Explain a sweep from its own numbers: how graph size, time and memory grow with the batch, and the 2 GiB limit."""

import numpy as np

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import between
from tfgraphs.records.sweep import fits, one_regime
from tfgraphs.spec import limits, network
from tfgraphs.units import fmt_bytes, fmt_s

# Peak RSS of identical workers differs by a few MB, so a memory slope over less data than this says nothing.
PEAK_SPAN_BYTES = 8 * 2**20


def series(report, variant):
    """The ok rows of one variant, smallest batch first."""
    return sorted((r for r in report.rows if r.variant == variant and r.ok), key=lambda r: r.batch)


def peak_per_example(report, variant):
    """Slope of peak resident memory against batch, in units of one example's bytes; None when the batches span too little."""
    rows = one_regime([r for r in series(report, variant) if r.peak_rss_bytes])
    example = network.example_bytes(report.config["dtype"])
    if len(rows) < 2 or (rows[-1].batch - rows[0].batch) * example < PEAK_SPAN_BYTES:
        return None
    slope, _ = np.polyfit([float(r.batch) for r in rows], [float(r.peak_rss_bytes) for r in rows], 1)
    return slope / example


def _times(q):
    """A ratio as '1.5x', '4x' or '655x': three significant figures, whole numbers from 100 up."""
    return f"{q:,.0f}x" if q >= 100 else f"{q:.3g}x"


def _slope_sentence(fit, dtype, largest):
    example, item = network.example_bytes(dtype), np.dtype(dtype).itemsize
    v, a, b = fit.variant, fit.bytes_per_example, fit.overhead_bytes
    r = fit.max_residual_bytes
    residual = f"{r} byte{'s' if r != 1 else ''}"
    if fit.points is not None and fit.points < 3:
        # Through two points a line always fits; only rounding a to whole bytes can leave a residual.
        wobble = (f" (a line through {fit.points} batches fits them by construction"
                  + (f"; its largest residual, {residual}, comes from rounding a to whole bytes" if r else "")
                  + ", so this does not check that growth is linear)")
    elif r:
        wobble = f" (largest residual {residual})"
    else:
        wobble = f" (no residual: all {fit.points} batches lie on the line)" if fit.points else " (no residual)"
    if a == 0:
        return (f"{v}'s GraphDef stays at about {b:,} bytes at every batch{wobble}: X is not in it, "
                f"so neither 2 GiB limit (one tensor, or the serialized GraphDef) sets a largest batch for it.")
    if a == example:
        what = (f"exactly {network.HEIGHT}x{network.WIDTH}x{network.CHANNELS} values x {item} bytes ({dtype}), "
                f"the example itself stored in the graph")
    elif a % example == 0:
        k = a // example
        what = f"exactly {k} copies of each {example:,}-byte {dtype} example: X is in the graph {k} times"
    else:
        what = f"{a / example:.3f}x the {example:,} bytes of one {dtype} example"
    said = f"{v}: each example adds {a:,} bytes to the GraphDef, {what}; the rest takes {b:,} bytes{wobble}."
    if fit.max_batch is not None:
        said += (f" Extended past the measured batches, up to batch {fit.max_batch:,} "
                 f"({_times(fit.max_batch / largest)} the largest batch measured) the line stays under the "
                 f"{limits.GRAPHDEF}.")
        tensor = limits.max_tensor_batch(dtype)
        if a > example and tensor != fit.max_batch:
            said += (f" Each copy of X is one tensor and stays under the {limits.TENSOR} up to batch {tensor:,}: "
                     f"between the two, the graph can be built and run in a local session but not serialized.")
    return said


def _memory_clause(probe):
    """What the worker's resident memory did across the call, when the worker measured it."""
    before, after = probe.get("rss_before_bytes"), probe.get("rss_after_bytes")
    if before is None or after is None:
        return ""
    change = after - before
    return (f" The worker's resident memory was {fmt_bytes(before)} before the call and {fmt_bytes(after)} after it "
            f"({'+' if change >= 0 else '-'}{fmt_bytes(abs(change))}, {change / probe['data_bytes'] * 100:.2g}% of "
            f"the tensor's bytes).")


def _limit_sentence(probe):
    if probe is None:
        return None
    batch, fitted = probe["batch"], probe["predicted_max_batch"]
    if probe.get("failure"):
        return f"The limit was not put to TensorFlow at batch {batch:,}: {probe['failure']}."
    what = (f"a {probe['data_bytes']:,}-byte tensor for X ({probe['variant']} at batch {batch:,}; the fitted "
            f"GraphDef limit is batch {fitted:,})")
    if probe.get("refused"):
        return (f"TensorFlow refused {what} when the constant was made, the {limits.TENSOR}: "
                f"\"{probe['message']}\" So {probe['variant']} cannot be built at batch {batch:,}, as the fit "
                f"predicts; batch {fitted:,} itself was not tried." + _memory_clause(probe))
    return (f"TensorFlow accepted {what}: the {limits.TENSOR} let X through, so the fitted limit at this "
            f"batch is the {limits.GRAPHDEF}, which this probe did not try." + _memory_clause(probe))


@rests_on("runs_s")
def _against_fed(report):
    """Each embedding variant's median later run over the first fed variant's, batch by batch."""
    found = fits(report)
    base = next((f.variant for f in found if f.bytes_per_example == 0), None)
    if base is None:
        return []
    fed = {r.batch: r for r in series(report, base)}
    said = []
    for f in found:
        if f.bytes_per_example == 0:
            continue
        # A ratio is given only where the later runs differ beyond both sides' spread.
        pairs = [(r.batch, r.later_median_s / fed[r.batch].later_median_s, r.folded, between(r.runs_s, fed[r.batch].runs_s))
                 for r in series(report, f.variant) if r.batch in fed and fed[r.batch].later_median_s]
        if pairs:
            said.append(f"{f.variant}'s median later run over {base}'s: "
                        + ", ".join((f"{q:.2f}x at batch {b:,} (beyond a spread of {fmt_s(d.spread)})" if d.real else
                                     f"no measurable difference at batch {b:,} (spread {fmt_s(d.spread)})")
                                    + (" (folded: the network was skipped)" if folded else "")
                                    for b, q, folded, d in pairs) + ".")
    if said:
        said[-1] = said[-1][:-1] + " (`tfgraphs explain` shows what the first run and the optimizers do with X)."
    return said


@rests_on("folded")
def _boundary(rows, dtype):
    """Where a variant's later runs stopped skipping the network: the boundary batch this sweep found, if any."""
    folded = [r.batch for r in rows if r.folded]
    kept = [r.batch for r in rows if r.folded is False]
    if not folded or not kept:
        return []
    lo, hi = max(folded), min(kept)
    if lo > hi:
        return [(f"{rows[0].variant}: the network was replaced by a constant at batches {', '.join(map(str, folded))} "
                f"but not at {', '.join(map(str, kept))}, with no single boundary; growth is given within one regime.")]
    out = network.output_bytes
    return [(f"{rows[0].variant}: constant folding replaced the whole network by one constant up to batch {lo:,} "
            f"(output {out(lo, dtype):,} bytes) and not from batch {hi:,} (output {out(hi, dtype):,} bytes), "
            f"as the partition graphs of each batch showed: below it later runs skip the network. " + (f"Growth and the fit use batch {hi:,} and up only." if len(one_regime(rows)) > 1 else
                                f"Only batch {hi:,} lies on the side of the largest batch, so no growth or fit is "
                                f"given for {rows[0].variant}: sweep more batches above the boundary."))]


def sentences(report):
    """Sentences that hold for this sweep's numbers; each changes or disappears when they do not."""
    dtype = report.config["dtype"]
    measured = [r.batch for r in report.rows if r.ok]
    if not measured:
        return ["No batch produced a result, so there is nothing to explain."]
    said = [_slope_sentence(f, dtype, max(measured)) for f in fits(report)]
    said.append(_limit_sentence(report.extra.get("tf_error")))
    said.extend(_against_fed(report))
    for v in report.config["variants"]:
        said.extend(_boundary(series(report, v), dtype))
        # Growth needs the later runs of both ends; a row without them says nothing here.
        rows = [r for r in one_regime(series(report, v)) if r.later_median_s is not None]
        if len(rows) < 2:
            continue
        lo, hi = rows[0], rows[-1]
        lo_later, hi_later = lo.later_median_s, hi.later_median_s
        said.append(f"From batch {lo.batch:,} to {hi.batch:,} ({_times(hi.batch / lo.batch)} the data) {v}'s first "
                    f"run went from {fmt_s(lo.first_run_s)} to {fmt_s(hi.first_run_s)} "
                    f"({_times(hi.first_run_s / lo.first_run_s)}) and its median later run from {fmt_s(lo_later)} "
                    f"to {fmt_s(hi_later)} ({_times(hi_later / lo_later)}).")
        per_example = peak_per_example(report, v)
        if per_example is not None:
            said.append(f"{v}'s peak memory grew by {per_example:.1f}x the bytes of each added example "
                        f"(up to {fmt_bytes(hi.peak_rss_bytes)} at batch {hi.batch:,}).")
    return [s for s in said if s]
