"""sweep's findings: how graph size, time and memory grow with the batch, and the 2 GiB limits, each finding a named
function said over one view of the results' rows; the headline ones open the page."""

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from tfgraphs.findings.evidence import FINDINGS, answer_then_findings, finding, has, judged, more_trials, sentences_of
from tfgraphs.records.judge import RANK_SUM, judge, median_or_none
from tfgraphs.records.sweep import fits, one_regime
from tfgraphs.spec import network
from tfgraphs.spec.options import FEWEST, later_runs_option
from tfgraphs.units import fmt_bytes, fmt_s

SHOWN = 5   # answer lines at most
AGAINST = ("first_runs_s", "runs_s")
FIRSTS = ("first_run_s", "first_runs_s")
PEAK = ("peak_rss_bytes",)


# Peak RSS of identical workers differs by a few MB, so a memory slope over less data than this says nothing.
PEAK_SPAN_BYTES = 8 * 2**20


def series(results, variant):
    """The ok rows of one variant, smallest batch first."""
    return sorted((r for r in results.rows if r.variant == variant and r.ok), key=lambda r: r.batch)


def later_medians(row):
    """Each ok trial's median later run: one sample per fresh worker, as a point's first runs are."""
    return tuple(median_or_none(t.runs_s) for t in row.trials if t.status == "ok" and t.runs_s)


def peaks(row):
    """Each ok trial's peak resident memory: one sample per fresh worker."""
    return tuple(t.peak_rss_bytes for t in row.trials if t.status == "ok" and t.peak_rss_bytes)


def first_run_change(lo, hi):
    """The judge on two points' first runs, the larger batch's against the smaller's, one per fresh worker."""
    return judge(hi.first_runs_s, lo.first_runs_s)


def peak_per_example(results, variant):
    """(slope of peak resident memory against batch in units of one example's bytes, the judge's verdict on the peaks
    of the largest batch against the smallest, those two rows); None when the batches span too little."""
    rows = one_regime([r for r in series(results, variant) if r.peak_rss_bytes])
    example = network.example_bytes(results.config.dtype)
    if len(rows) < 2 or (rows[-1].batch - rows[0].batch) * example < PEAK_SPAN_BYTES:
        return None
    slope, _ = np.polyfit([float(r.batch) for r in rows], [float(r.peak_rss_bytes) for r in rows], 1)
    # A slope is growth only where the points it runs between are told apart.
    return slope / example, judge(peaks(rows[-1]), peaks(rows[0])), rows[0], rows[-1]


def _times(q):
    """A ratio as '1.5x', '4x' or '655x': three significant figures, whole numbers from 100 up."""
    return f"{q:,.0f}x" if q >= 100 else f"{q:.3g}x"


# A GraphDef holds each copy of X's bytes inside five length-delimited fields (the NodeDef, its attr map entry, the
# AttrValue, the TensorProto, its tensor_content), each prefixed by its length as a varint of one byte per 7 bits.
PREFIXES = 5
PREFIXED = "NodeDef, attr entry, AttrValue, TensorProto, tensor_content"


def varint_bytes(n):
    """The bytes of n's length prefix: a protobuf varint, 7 bits a byte."""
    return max(1, (n.bit_length() + 6) // 7)


def prefix_widening(points, fit, example):
    """[(p, batch before, batch after)] for each power 128**p X's data passed between two measured batches, when
    the fit's whole residual is its length prefixes widening there: the sizes less PREFIXES varint bytes a copy of X
    lie on a line of the fit's slope at every batch; else None."""
    copies, rest = divmod(fit.bytes_per_example, example)
    if not fit.max_residual_bytes or rest or not copies or len(points) < 3:
        return None
    batches = sorted(points)
    left = {points[n] - PREFIXES * copies * varint_bytes(n * example) - fit.bytes_per_example * n for n in batches}
    if len(left) != 1:
        return None
    return [(p, lo, hi) for lo, hi in zip(batches, batches[1:]) for p in range(1, 5)
            if lo * example < 128 ** p <= hi * example] or None


def _residual_clause(fit, points, example):
    """' (largest residual 5 bytes ...)': the residual, and where the run's sizes show it is the prefixes widening."""
    r = fit.max_residual_bytes
    residual = f"{r} byte{'s' if r != 1 else ''}"
    if fit.points is not None and fit.points < 3:
        # Through two points a line always fits; only rounding a to whole bytes can leave a residual.
        return (f" (a line through {fit.points} batches fits them by construction"
                + (f"; its largest residual, {residual}, comes from rounding a to whole bytes" if r else "")
                + ", so this does not check that growth is linear)")
    if not r:
        return f" (no residual: all {fit.points} batches lie on the line)" if fit.points else " (no residual)"
    widened = prefix_widening(points or {}, fit, example)
    if not widened:
        return f" (largest residual {residual})"
    where = "; ".join(f"{128 ** p:,} bytes (128^{p}) between batch {lo:,} and {hi:,}" for p, lo, hi in widened)
    return (f" (largest residual {residual}: X's data passed {where}, where each of the {PREFIXES} length prefixes "
            f"around a copy of it ({PREFIXED}) takes a byte more; less those bytes, all {fit.points} batches lie on "
            f"the line)")


def slope_sentence(fit, dtype, largest, points=None):
    """A fitted line: bytes per example, the rest, its residual (and, from points {batch: graph bytes}, whether the
    length prefixes account for it), and how far it stays under 2 GiB."""
    example, item = network.example_bytes(dtype), np.dtype(dtype).itemsize
    v, a, b = fit.variant, fit.bytes_per_example, fit.overhead_bytes
    wobble = _residual_clause(fit, points, example)
    if a == 0:
        return (f"{v}'s GraphDef stays at about {b:,} bytes at every batch{wobble}: X is not in it, "
                f"so neither 2 GiB limit (one tensor, or the serialized GraphDef) sets a largest batch for it.")
    # "exactly" only where every batch lies on the line: a residual means some example added more.
    exactly = "" if fit.max_residual_bytes else "exactly "
    if a == example:
        what = (f"{exactly}{network.HEIGHT}x{network.WIDTH}x{network.CHANNELS} values x {item} bytes ({dtype}), "
                f"the example itself stored in the graph")
    elif a % example == 0:
        k = a // example
        what = f"{exactly}{k} copies of each {example:,}-byte {dtype} example: X is in the graph {k} times"
    else:
        what = f"{a / example:.3f}x the {example:,} bytes of one {dtype} example"
    line = f"{v}: each example adds {a:,} bytes to the GraphDef, {what}; the rest takes {b:,} bytes{wobble}."
    if fit.max_batch is not None:
        line += (f" Extended past the measured batches, up to batch {fit.max_batch:,} "
                 f"({_times(fit.max_batch / largest)} the largest batch measured) the line stays under the "
                 f"{network.GRAPHDEF}.")
        tensor = network.max_tensor_batch(dtype)
        if a > example and tensor != fit.max_batch:
            line += (f" Each copy of X is one tensor and stays under the {network.TENSOR} up to batch {tensor:,}: "
                     f"between the two, the graph can be built and run in a local session but not serialized.")
    return line


def _memory_clause(probe):
    """What the worker's resident memory did across the call, when the worker measured it."""
    before, after = probe.get("rss_before_bytes"), probe.get("rss_after_bytes")
    if before is None or after is None:
        return ""
    change = after - before
    return (f" The worker's resident memory was {fmt_bytes(before)} before the call and {fmt_bytes(after)} after it "
            f"({'+' if change >= 0 else '-'}{fmt_bytes(abs(change))}, {change / probe['data_bytes'] * 100:.2g}% of "
            f"the tensor's bytes).")


def limit_sentence(probe):
    """What TensorFlow did with the tensor of X the probe made, or None without a probe."""
    if probe is None:
        return None
    batch, fitted = probe["batch"], probe["predicted_max_batch"]
    if probe.get("failure"):
        return f"The limit was not put to TensorFlow at batch {batch:,}: {probe['failure']}."
    what = (f"a {probe['data_bytes']:,}-byte tensor for X ({probe['variant']} at batch {batch:,}; the fitted "
            f"GraphDef limit is batch {fitted:,})")
    if probe.get("refused"):
        return (f"TensorFlow refused {what} when the constant was made, the {network.TENSOR}: "
                f"\"{probe['message']}\" So {probe['variant']} cannot be built at batch {batch:,}: "
                f"make_tensor_proto's single-tensor check (tensor_util.py, content of 2**31 bytes or more) refused X "
                f"before any GraphDef existed, so the serialized-GraphDef limit the fit models was not reached; batch "
                f"{fitted:,} itself was not tried." + _memory_clause(probe))
    return (f"TensorFlow accepted {what}: the {network.TENSOR} let X through, so the fitted limit at this "
            f"batch is the {network.GRAPHDEF}, which this probe did not try." + _memory_clause(probe))


def _fold_limit(kept, dropped):
    """Whether the folded outputs found bracket the classic folder's default limit, named with its knob."""
    limit = network.FOLDED_CONSTANT_BYTES
    where = "lies between them" if kept <= limit < dropped else "does not lie between them"
    return (f"The classic folder keeps a result of at most {limit:,} bytes (10 MiB) unless {network.FOLD_KNOB} sets "
            f"another, and sweep leaves it at that default: that limit {where}.")


def more_samples(first, later, option):
    """What to run where the first runs, the later runs or both were too few to tell: one clause."""
    a, b = more_trials(first), more_trials(later, option=option)
    if a and b and option != "--trials":
        return a.replace(" or more", f" (and {option} {FEWEST[RANK_SUM]} for the later runs) or more")
    return a or b


def _change(what, lo, hi, verdict, unit=fmt_s):
    """'its first run went from A to B: differs (...)' only when the judge finds it did; else 'was A and B: ...'."""
    moved = "went from {} to {}" if verdict.differs else "was {} and {}"
    return f"{what} {moved.format(unit(lo), unit(hi))}: {verdict.says()}"




@dataclass(frozen=True)
class View:
    """The results (their rows, or those holding some evidence), their fits and their variants."""

    results: object
    whole: object = None

    def with_evidence(self, names):
        """The view over the rows that hold every field in names."""
        return replace(self, results=replace(self.results, rows=tuple(r for r in self.results.rows
                                                                       if has(r, names))),
                       whole=self.whole or self)

    @cached_property
    def fits(self):
        return fits(self.results)

    @property
    def ok(self):
        return [r for r in self.results.rows if r.ok]

    @property
    def variants(self):
        return list(self.results.config.variants)


def _measured(view):
    """True when some batch produced a result (in the whole results)."""
    return bool((view.whole or view).ok)


def _fitted(view, line):
    """True when the fit's variant has an ok row holding the evidence."""
    return any(r.variant == line.variant for r in view.ok)


def _ends(view, variant):
    """The smallest and largest batch of the variant's regime of the largest batch, both with later runs, or None:
    chosen over every row, as growth is judged between them."""
    rows = [r for r in one_regime(series((view.whole or view).results, variant)) if r.later_median_s is not None]
    return (rows[0], rows[-1]) if len(rows) >= 2 else None


def _peak(view, variant):
    """(growth per example, verdict, lo, hi) of the variant's peaks, when its ends and both peaks are there."""
    peak = peak_per_example((view.whole or view).results, variant) if _ends(view, variant) else None
    return peak if peak and all(has(r, PEAK) for r in peak[2:]) else None


def _regime_rows(view, names):
    """Every variant's rows in the regime of its largest batch, those holding names."""
    return [r for var in view.variants for r in one_regime(series((view.whole or view).results, var))
            if has(r, names)]


def first_three(view):
    """The first three fits: the answer's."""
    return view.fits[:3]


def every_fit(view):
    """Every variant's fitted GraphDef size."""
    return view.fits


def variants(view):
    """The variants the sweep ran, in their order."""
    return view.variants


@finding("sweep.fit", ("graph_bytes",), headline=True, per=first_three,
         template="{variant}: each example adds {bytes} bytes to the GraphDef (fit over {n} batches), under 2 GiB up "
                  "to batch {n}. / {variant}: the GraphDef stays at about {bytes} bytes at every batch.",
         unless="the variant's GraphDef was not measured at two batches (no fit)")
def fitted_line(view, line):
    """A fitted line, in one line: measured bytes per example, the rest, and the largest batch under 2 GiB."""
    if not _fitted(view, line):
        return []
    if not line.bytes_per_example:
        return [f"{line.variant}: the GraphDef stays at about {line.overhead_bytes:,} bytes at every batch."]
    limit = f", under 2 GiB up to batch {line.max_batch:,}" if line.max_batch else ""
    return [f"{line.variant}: each example adds {line.bytes_per_example:,} bytes to the GraphDef (fit over "
            f"{line.points} batches){limit}."]


@finding("sweep.first_runs", FIRSTS, headline=True,
         template="Median first run at batch {n} and {n}: {variant} {time} and {time}, ...: each {verdict}.",
         unless="no variant has two batches in the regime of its largest batch")
def first_runs(view):
    """Each variant's first run at the smallest and the largest batch of its regime, in one line, and whether the
    judge tells them apart."""
    rows, points = _regime_rows(view, FIRSTS), []
    for variant in dict.fromkeys(r.variant for r in rows):
        mine = [r for r in rows if r.variant == variant]
        if len(mine) >= 2:
            lo, hi = mine[0], mine[-1]
            at = "" if not points or points[0][0] == (lo.batch, hi.batch) else f" (batch {lo.batch:,} and {hi.batch:,})"
            points.append(((lo.batch, hi.batch), f"{variant} {fmt_s(lo.first_run_s)} and {fmt_s(hi.first_run_s)}{at}",
                           first_run_change(lo, hi)))
    if not points:
        return []
    (lo_batch, hi_batch), verdicts = points[0][0], [v for _, _, v in points]
    runs = ", ".join(name for _, name, _ in points)
    briefs = {v.brief() for v in verdicts}
    judged_as = (f"each {briefs.pop()}" if len(briefs) == 1 else
                 "; ".join(f"{name.split(' ', 1)[0]} {v.brief()}" for _, name, v in points))
    return [judged(f"Median first run at batch {lo_batch:,} and {hi_batch:,}: {runs}: {judged_as}"
                   f"{more_trials(*verdicts)}.",
                   *verdicts)]


@finding("sweep.no_result", headline=True, template="No batch produced a result.",
         unless="any other answer line is said")
def no_result(view):
    """No other answer line is said: no batch produced a result."""
    return [] if sentences_of((fitted_line.finding, first_runs.finding), view.whole or view) else [
        "No batch produced a result."]


@finding("sweep.nothing", template="No batch produced a result, so there is nothing to explain.",
         unless="some batch produced a result")
def nothing(view):
    """No batch produced a result to explain."""
    return [] if _measured(view) else ["No batch produced a result, so there is nothing to explain."]


@finding("sweep.slope", ("graph_bytes",), per=every_fit,
         template="{variant}: each example adds {bytes} bytes to the GraphDef, {what}; the rest takes {bytes} bytes "
                  "(largest residual {bytes}). Extended past the measured batches, up to batch {n} ... the line stays "
                  "under the 2 GiB GraphDef limit.",
         unless="the variant's GraphDef was not measured at two batches (no fit)")
def slope(view, line):
    """A fitted line in full, against the largest batch measured."""
    if not _fitted(view, line):
        return []
    points = {r.batch: r.graph_bytes for r in series(view.whole.results, line.variant) if r.graph_bytes is not None}
    return [slope_sentence(line, view.results.config.dtype, max(r.batch for r in view.whole.ok), points)]


@finding("sweep.limit",
         template="TensorFlow refused / accepted a {bytes}-byte tensor for X ({variant} at batch {n}; the fitted "
                  "GraphDef limit is batch {n}) ...",
         unless="the sweep did not put the 2 GiB tensor limit to TensorFlow (--probe-limit)")
def limit(view):
    """What TensorFlow did with a tensor of X at the tensor limit, when the sweep probed it."""
    if not _measured(view) or view.results.tf_error is None:
        return []
    return [limit_sentence(view.results.tf_error)]


@finding("sweep.against_fed", AGAINST,
         template="{variant}'s later runs against {fed variant}'s (each point's median later run, one per fresh "
                  "worker): at batch {n}, {verdict}; ...",
         unless="the sweep has no fed variant beside one holding X in its graph")
def against_fed(view):
    """Each embedding variant's median later run over the first fed variant's, batch by batch."""
    results, found = view.results, view.fits
    base = next((f.variant for f in found if f.bytes_per_example == 0), None)
    if base is None or not any(f.bytes_per_example for f in found):
        return []
    fed = {r.batch: r for r in series(results, base)}
    out = []
    for f in found:
        if f.bytes_per_example == 0:
            continue
        # Each batch's later runs are judged on one median per fresh worker, as the points are measured.
        pairs = [(r.batch, r.folded, judge(later_medians(r), later_medians(fed[r.batch])))
                 for r in series(results, f.variant) if r.batch in fed]
        if pairs:
            out.append(judged(f"{f.variant}'s later runs against {base}'s (each point's median later run, one per "
                              f"fresh worker): "
                              + "; ".join(f"at batch {b:,}, {v.says()}"
                                          + (" (folded: the network was skipped)" if folded else "")
                                          for b, folded, v in pairs)
                              + more_trials(*(v for _, _, v in pairs), option=later_runs_option(results.config))
                              + ".",
                              *(v for _, _, v in pairs)))
    if out:
        last = out[-1]
        out[-1] = judged(last[:-1] + " (`tfgraphs explain` shows what the first run and the optimizers do with X).",
                         *last.verdicts)
    return out


@finding("sweep.boundary", ("folded",), per=variants,
         template="{variant}: constant folding replaced the whole network by one constant up to batch {n} (output "
                  "{bytes} bytes) and not from batch {n} ...",
         unless="the variant's later runs were folded at every batch or at none")
def boundary(view, variant):
    """Where a variant's later runs stopped skipping the network: the boundary batch this sweep found, if any."""
    rows, dtype = series(view.results, variant), view.results.config.dtype
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


@finding("sweep.growth", AGAINST, per=variants,
         template="From batch {n} to {n} ({ratio} the data), {variant}'s median first run went from {time} to {time} "
                  "/ was "
                  "{time} and {time}: {verdict}; its median later run ...",
         unless="the variant has fewer than two batches with later runs in the regime of its largest batch")
def growth(view, variant):
    """The first run and the median later run at the smallest and the largest batch of one regime, as judged."""
    ends = _ends(view, variant)
    if not ends or not all(has(r, AGAINST) for r in ends):
        return []
    lo, hi = ends
    first, later = first_run_change(lo, hi), judge(later_medians(hi), later_medians(lo))
    return [judged(f"From batch {lo.batch:,} to {hi.batch:,} ({_times(hi.batch / lo.batch)} the data), "
                   + _change(f"{variant}'s median first run", lo.first_run_s, hi.first_run_s, first) + "; "
                   + _change("its median later run", lo.later_median_s, hi.later_median_s, later)
                   + more_samples(first, later, later_runs_option(view.results.config)) + ".", first, later)]


@finding("sweep.peak_growth", PEAK, per=variants,
         template="{variant}'s peak memory grew by {ratio}x the bytes of each added example (...) / was {bytes} at "
                  "batch {n} and {bytes} at batch {n}: {verdict}; no growth per example is given ...",
         unless="the batches span less than 8 MiB of data, or fewer than two have later runs")
def peak_growth(view, variant):
    """Peak memory per added example, said as growth only where the judge tells the end points' peaks apart."""
    peak = _peak(view, variant)
    if not peak:
        return []
    per_example, verdict, lo, hi = peak
    if verdict.differs:
        return [judged(f"{variant}'s peak memory grew by {per_example:.1f}x the bytes of each added example (up to "
                       f"{fmt_bytes(hi.peak_rss_bytes)} at batch {hi.batch:,}; batch {hi.batch:,} against "
                       f"{lo.batch:,}: {verdict.says()}).", verdict)]
    option = later_runs_option(view.results.config)
    return [judged(f"{variant}'s peak memory was {fmt_bytes(lo.peak_rss_bytes)} at batch {lo.batch:,} and "
                   f"{fmt_bytes(hi.peak_rss_bytes)} at batch {hi.batch:,}: {verdict.says()}; no growth per example "
                   f"is given where the end points are not told apart{more_trials(verdict, option=option)}.", verdict)]


def answer_and_findings(results):
    """(the answer, the findings): every sweep finding said over one view of the results, split by headline."""
    return answer_then_findings(FINDINGS["sweep"], lambda: View(results), SHOWN)
