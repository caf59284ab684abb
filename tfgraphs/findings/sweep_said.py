"""The sentences of sweep's findings: the fitted GraphDef sizes, the 2 GiB probe, the later runs against the fed
variant's, the folding boundary, and growth with the batch, each from a sweep's own numbers."""

import numpy as np

from tfgraphs.findings.evidence import judged
from tfgraphs.findings.explain_said import more_trials
from tfgraphs.records.judge import FEWEST, RANK_SUM, judge
from tfgraphs.records.stats import median_or_none
from tfgraphs.records.sweep import fits, one_regime
from tfgraphs.spec import limits, network
from tfgraphs.spec.common import later_runs_option
from tfgraphs.units import fmt_bytes, fmt_s

# Peak RSS of identical workers differs by a few MB, so a memory slope over less data than this says nothing.
PEAK_SPAN_BYTES = 8 * 2**20


def series(report, variant):
    """The ok rows of one variant, smallest batch first."""
    return sorted((r for r in report.rows if r.variant == variant and r.ok), key=lambda r: r.batch)


def later_medians(row):
    """Each ok trial's median later run: one sample per fresh worker, as a point's first runs are."""
    return tuple(median_or_none(t.runs_s) for t in row.trials if t.status == "ok" and t.runs_s)


def peaks(row):
    """Each ok trial's peak resident memory: one sample per fresh worker."""
    return tuple(t.peak_rss_bytes for t in row.trials if t.status == "ok" and t.peak_rss_bytes)


def first_run_change(lo, hi):
    """The judge on two points' first runs, the larger batch's against the smaller's, one per fresh worker."""
    return judge(hi.first_runs_s, lo.first_runs_s)


def peak_per_example(report, variant):
    """(slope of peak resident memory against batch in units of one example's bytes, the judge's verdict on the peaks
    of the largest batch against the smallest, those two rows); None when the batches span too little."""
    rows = one_regime([r for r in series(report, variant) if r.peak_rss_bytes])
    example = network.example_bytes(report.config.dtype)
    if len(rows) < 2 or (rows[-1].batch - rows[0].batch) * example < PEAK_SPAN_BYTES:
        return None
    slope, _ = np.polyfit([float(r.batch) for r in rows], [float(r.peak_rss_bytes) for r in rows], 1)
    # A slope is growth only where the points it runs between are told apart.
    return slope / example, judge(peaks(rows[-1]), peaks(rows[0])), rows[0], rows[-1]


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
        # Each batch's later runs are judged on one median per fresh worker, as the points are measured.
        pairs = [(r.batch, r.folded, judge(later_medians(r), later_medians(fed[r.batch])))
                 for r in series(report, f.variant) if r.batch in fed]
        if pairs:
            said.append(judged(f"{f.variant}'s later runs against {base}'s (each point's median later run, one per "
                               f"fresh worker): "
                               + "; ".join(f"at batch {b:,}, {v.says()}"
                                           + (" (folded: the network was skipped)" if folded else "")
                                           for b, folded, v in pairs)
                               + more_trials(*(v for _, _, v in pairs), option=later_runs_option(report.config))
                               + ".",
                               *(v for _, _, v in pairs)))
    if said:
        last = said[-1]
        said[-1] = judged(last[:-1] + " (`tfgraphs explain` shows what the first run and the optimizers do with X).",
                          *last.verdicts)
    return said


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
    after = (f"The growth of the runs uses batch {hi:,} and up only; the GraphDef's fit uses every batch: folding "
             f"rewrites the graph the session runs, not the GraphDef." if len(one_regime(rows)) > 1 else
             f"Only batch {hi:,} lies on the side of the largest batch, so no growth of the runs is given for "
             f"{rows[0].variant} (sweep more batches above the boundary); the GraphDef's fit uses every batch.")
    return [(f"{rows[0].variant}: constant folding replaced the whole network by one constant up to batch {lo:,} "
             f"(output {out(lo, dtype):,} bytes) and not from batch {hi:,} (output {out(hi, dtype):,} bytes), as the "
             f"partition graphs of each batch showed: at batch {', '.join(f'{b:,}' for b in folded)} later runs "
             f"skipped the network; the boundary lies between {lo:,} and {hi:,} (no batch between them was measured). "
             f"{_fold_limit(out(lo, dtype), out(hi, dtype))} {after}")]


def _fold_limit(kept, dropped):
    """Whether the folded outputs found bracket the classic folder's default limit, named with its knob."""
    limit = limits.FOLDED_CONSTANT_BYTES
    where = "lies between them" if kept <= limit < dropped else "does not lie between them"
    return (f"The classic folder keeps a result of at most {limit:,} bytes (10 MiB) unless {limits.FOLD_KNOB} sets "
            f"another, and sweep leaves it at that default: that limit {where}.")


def _more(first, later, option):
    """What to run where the first runs, the later runs or both were too few to tell: one clause."""
    a, b = more_trials(first), more_trials(later, option=option)
    if a and b and option != "--trials":
        return a.replace(" or more", f" (and {option} {FEWEST[RANK_SUM]} for the later runs) or more")
    return a or b


def _change(what, lo, hi, verdict, unit=fmt_s):
    """'its first run went from A to B: differs (...)' only when the judge finds it did; else 'was A and B: ...'."""
    moved = "went from {} to {}" if verdict.differs else "was {} and {}"
    return f"{what} {moved.format(unit(lo), unit(hi))}: {verdict.says()}"


def _growth(variant, lo, hi, *, config):
    """The first run and the median later run at the smallest and the largest batch of one regime, as judged."""
    first, later = first_run_change(lo, hi), judge(later_medians(hi), later_medians(lo))
    return [judged(f"From batch {lo.batch:,} to {hi.batch:,} ({_times(hi.batch / lo.batch)} the data), "
                   + _change(f"{variant}'s first run", lo.first_run_s, hi.first_run_s, first) + "; "
                   + _change("its median later run", lo.later_median_s, hi.later_median_s, later)
                   + _more(first, later, later_runs_option(config)) + ".", first, later)]


def _peak_growth(variant, lo, hi, *, per_example, verdict, option):
    """Peak memory per added example, said as growth only where the judge tells the end points' peaks apart."""
    if verdict.differs:
        return [judged(f"{variant}'s peak memory grew by {per_example:.1f}x the bytes of each added example (up to "
                      f"{fmt_bytes(hi.peak_rss_bytes)} at batch {hi.batch:,}; batch {hi.batch:,} against "
                      f"{lo.batch:,}: {verdict.says()}).", verdict)]
    return [judged(f"{variant}'s peak memory was {fmt_bytes(lo.peak_rss_bytes)} at batch {lo.batch:,} and "
                  f"{fmt_bytes(hi.peak_rss_bytes)} at batch {hi.batch:,}: {verdict.says()}; no growth per example is "
                  f"given where the end points are not told apart{more_trials(verdict, option=option)}.", verdict)]


def _fit(fit):
    """A fitted line, in one line: measured bytes per example, the rest, and the largest batch under 2 GiB."""
    if not fit.bytes_per_example:
        return f"{fit.variant}: the GraphDef stays at about {fit.overhead_bytes:,} bytes at every batch."
    limit = f", under 2 GiB up to batch {fit.max_batch:,}" if fit.max_batch else ""
    return (f"{fit.variant}: each example adds {fit.bytes_per_example:,} bytes to the GraphDef (fit over "
            f"{fit.points} batches){limit}.")


def _first_runs(rows):
    """Each variant's first run at the smallest and the largest batch, in one line, and whether the judge tells them
    apart (rows: every variant's series, in order)."""
    told = []
    for variant in dict.fromkeys(r.variant for r in rows):
        mine = [r for r in rows if r.variant == variant]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            at = "" if not told or told[0][0] == (lo.batch, hi.batch) else f" (batch {lo.batch:,} and {hi.batch:,})"
            told.append(((lo.batch, hi.batch), f"{variant} {fmt_s(lo.first_run_s)} and {fmt_s(hi.first_run_s)}{at}",
                         first_run_change(lo, hi)))
    if not told:
        return []
    (lo_batch, hi_batch), verdicts = told[0][0], [v for _, _, v in told]
    runs = ", ".join(name for _, name, _ in told)
    briefs = {v.brief() for v in verdicts}
    judged_as = (f"each {briefs.pop()}" if len(briefs) == 1 else
                 "; ".join(f"{name.split(' ', 1)[0]} {v.brief()}" for _, name, v in told))
    return [judged(f"First run at batch {lo_batch:,} and {hi_batch:,}: {runs}: {judged_as}{more_trials(*verdicts)}.",
                   *verdicts)]
