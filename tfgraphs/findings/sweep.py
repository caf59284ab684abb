"""What a sweep tells a reader, declared as data: how graph size, time and memory grow with the batch, and the 2 GiB
limit; the headline ones open the page. All are said over one view of the report's rows."""

from dataclasses import dataclass, replace
from functools import cached_property

from tfgraphs.findings import sweep_said as said
from tfgraphs.findings.evidence import Finding, has, said_by
from tfgraphs.findings.sweep_said import (PEAK_SPAN_BYTES, _limit_sentence, _more, _slope_sentence, peak_per_example,
                                          series)
from tfgraphs.records.sweep import fits, one_regime
from tfgraphs.spec.common import later_runs_option

# Reached here by the page, its figure and the tests.
__all__ = ["DECLARED", "PEAK_SPAN_BYTES", "_limit_sentence", "_more", "_slope_sentence", "answer",
           "peak_per_example", "sentences", "series", "told"]
SHOWN = 5   # answer lines at most


@dataclass(frozen=True)
class View:
    """The report (its rows, or those holding some evidence), its fits and its variants."""

    report: object
    whole: object = None

    def having(self, names):
        """The view over the rows that hold every field in names."""
        return replace(self, report=replace(self.report, rows=tuple(r for r in self.report.rows if has(r, names))),
                       whole=self.whole or self)

    @cached_property
    def fits(self):
        return fits(self.report)

    @property
    def ok(self):
        return [r for r in self.report.rows if r.ok]

    @property
    def variants(self):
        return list(self.report.config.variants)


def _measured(v):
    """True when some batch produced a result (in the whole report)."""
    return bool((v.whole or v).ok)


def _fitted(v, fit):
    """True when the fit's variant has an ok row holding the evidence."""
    return any(r.variant == fit.variant for r in v.ok)


def _ends(v, variant):
    """The smallest and largest batch of the variant's regime of the largest batch, both with later runs, or None:
    chosen over every row, as growth is judged between them."""
    rows = [r for r in one_regime(series((v.whole or v).report, variant)) if r.later_median_s is not None]
    return (rows[0], rows[-1]) if len(rows) >= 2 else None


def _ends_with(v, variant, names):
    ends = _ends(v, variant)
    return ends if ends and all(has(r, names) for r in ends) else None


def _peak(v, variant):
    """(growth per example, verdict, lo, hi) of the variant's peaks, when its ends and both peaks are there."""
    peak = peak_per_example((v.whole or v).report, variant) if _ends(v, variant) else None
    return peak if peak and all(has(r, PEAK) for r in peak[2:]) else None


def _boundary_rows(v, variant):
    return series(v.report, variant)


def _folded_and_kept(v, variant):
    rows = _boundary_rows(v, variant)
    return any(r.folded for r in rows) and any(r.folded is False for r in rows)


def _regime_rows(v, names):
    """Every variant's rows in the regime of its largest batch, those holding names."""
    return [r for var in v.variants for r in one_regime(series((v.whole or v).report, var)) if has(r, names)]


def _first_three(v):
    return v.fits[:3]


def _every_fit(v):
    return v.fits


def _variants(v):
    return v.variants


def _against_fed_possible(v):
    return any(f.bytes_per_example == 0 for f in v.fits) and any(f.bytes_per_example for f in v.fits)


AGAINST = ("first_runs_s", "runs_s")
FIRSTS = ("first_run_s", "first_runs_s")
PEAK = ("peak_rss_bytes",)
DECLARED = (
    Finding("sweep.fit", ("graph_bytes",), _fitted, lambda v, fit: [said._fit(fit)], True,
            "{variant}: each example adds {bytes} bytes to the GraphDef (fit over {n} batches), under 2 GiB up to "
            "batch {n}. / {variant}: the GraphDef stays at about {bytes} bytes at every batch.",
            "the variant's GraphDef was not measured at two batches (no fit)", per=_first_three),
    Finding("sweep.first_runs", FIRSTS, lambda v: any(
                len([r for r in _regime_rows(v, FIRSTS) if r.variant == var]) >= 2 for var in v.variants),
            lambda v: said._first_runs(_regime_rows(v, FIRSTS)), True,
            "First run at batch {n} and {n}: {variant} {time} and {time}, ...: each {verdict}.",
            "no variant has two batches in the regime of its largest batch"),
    Finding("sweep.no_result", (), lambda v: not said_by(DECLARED[:2], v.whole or v),
            lambda v: ["No batch produced a result."], True, "No batch produced a result.",
            "any other answer line is said"),
    Finding("sweep.nothing", (), lambda v: not _measured(v),
            lambda v: ["No batch produced a result, so there is nothing to explain."], False,
            "No batch produced a result, so there is nothing to explain.", "some batch produced a result"),
    Finding("sweep.slope", ("graph_bytes",), _fitted,
            lambda v, fit: [_slope_sentence(fit, v.report.config.dtype, max(r.batch for r in v.whole.ok))],
            False, "{variant}: each example adds {bytes} bytes to the GraphDef, {what}; the rest takes {bytes} bytes "
            "(largest residual {bytes}). Extended past the measured batches, up to batch {n} ... the line stays "
            "under the 2 GiB GraphDef limit.", "the variant's GraphDef was not measured at two batches (no fit)",
            per=_every_fit),
    Finding("sweep.limit", (), lambda v: _measured(v) and v.report.tf_error is not None,
            lambda v: [_limit_sentence(v.report.tf_error)], False,
            "TensorFlow refused / accepted a {bytes}-byte tensor for X ({variant} at batch {n}; the fitted GraphDef "
            "limit is batch {n}) ...", "the sweep did not put the 2 GiB tensor limit to TensorFlow (--probe-limit)"),
    Finding("sweep.against_fed", AGAINST, _against_fed_possible, lambda v: said._against_fed(v.report), False,
            "{variant}'s later runs against {fed variant}'s (each point's median later run, one per fresh worker): "
            "at batch {n}, {verdict}; ...", "the sweep has no fed variant beside one holding X in its graph"),
    Finding("sweep.boundary", ("folded",), lambda v, var: _folded_and_kept(v, var),
            lambda v, var: said._boundary(_boundary_rows(v, var), v.report.config.dtype), False,
            "{variant}: constant folding replaced the whole network by one constant up to batch {n} (output {bytes} "
            "bytes) and not from batch {n} ...", "the variant's later runs were folded at every batch or at none",
            per=_variants),
    Finding("sweep.growth", AGAINST, lambda v, var: _ends_with(v, var, AGAINST),
            lambda v, var: said._growth(var, *_ends(v, var), config=v.report.config), False,
            "From batch {n} to {n} ({ratio} the data), {variant}'s first run went from {time} to {time} / was "
            "{time} and {time}: {verdict}; its median later run ...",
            "the variant has fewer than two batches with later runs in the regime of its largest batch",
            per=_variants),
    Finding("sweep.peak_growth", PEAK, lambda v, var: _peak(v, var),
            lambda v, var: said._peak_growth(var, _peak(v, var)[2], _peak(v, var)[3], per_example=_peak(v, var)[0],
                                             verdict=_peak(v, var)[1], option=later_runs_option(v.report.config)),
            False, "{variant}'s peak memory grew by {ratio}x the bytes of each added example (...) / was {bytes} at "
            "batch {n} and {bytes} at batch {n}: {verdict}; no growth per example is given ...",
            "the batches span less than 8 MiB of data, or fewer than two have later runs", per=_variants),
)


def told(report):
    """(the answer, the findings): every declaration said over one view of the report, split by headline."""
    view = View(report)
    return (said_by(tuple(f for f in DECLARED if f.headline), view)[:SHOWN],
            said_by(tuple(f for f in DECLARED if not f.headline), view))


def answer(report):
    """At most five lines: bytes per example and the largest batch of each fitted variant, then first-run growth."""
    return told(report)[0]


def sentences(report):
    """Sentences that hold for this sweep's numbers; each changes or disappears when they do not."""
    return told(report)[1]
