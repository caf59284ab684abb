"""The fold-everything regime: measured by the worker, and never spanned by a ratio or a fit."""

from dataclasses import replace

import pytest

from conftest import words
from tfgraphs.findings import compare as why
from tfgraphs.findings import sweep as growth
from tfgraphs import processes
from tfgraphs.jobs.runner import Progress, run_worker
from tfgraphs.records import sweep as fits
from fakes import results
from tfgraphs.records.results import Measurement, Row
from tfgraphs.spec import network
from tfgraphs.spec.network import SeedTask
from tfgraphs.worker import graphs

DATA = network.data_bytes(1000, "float64")


def seed_doc(variant, batch, mode="timed"):
    """The document of one worker measuring the seed network, forked as a command's workers are."""
    with processes.workers():
        doc = run_worker(SeedTask(variant=variant, batch=batch, runs=1, mode=mode), variant, Progress(1, quiet=True))
    assert doc["status"] == "ok", doc
    return doc


def test_the_partition_graphs_say_whether_the_network_was_folded():
    # float64: batch 10's output is 108,000 bytes and is folded; batch 971's, 10,486,800 bytes, is computed. No size
    # rule decides it: the worker reads the partition graphs that ran, and the sentence rests on them.
    small, large = seed_doc("constant", 10), seed_doc("constant", 971)
    assert small["folded"] is True and not any(small["partition_computes"].values())
    assert small["replaced_by_const"] == ["relu/_0__cf__0"]
    assert large["folded"] is False and all(large["partition_computes"].values())
    assert large["replaced_by_const"] == []
    rows = [Row.from_trials("constant", [Measurement.from_dict(d)]) for d in (small, large)]
    (folded,), (kept,) = (why.regime_sentences([r]) for r in rows)
    assert "constant folding replaced the network" in folded and "relu/_0__cf__0, made by folding, stands in its place (partition graphs)" in folded
    assert "still holds Conv2D (partition graphs): the network was not folded" in kept


def test_the_traced_later_run_says_whether_conv2d_ran():
    doc = seed_doc("constant", 10, mode="traced")
    assert doc["folded"] is True
    assert not any(op["type"] == "Conv2D" and op["later_ms"] is not None for op in doc["top_ops"])
    ran = [{"op": "conv", "type": "Conv2D", "first_ms": 1.0, "later_ms": 0.5}]
    assert graphs.folded(ran) is False
    assert graphs.folded([{**ran[0], "later_ms": None}]) is True


FOLDED = {"partition_computes": {"Conv2D": False, "AvgPool": False, "Relu": False},
          "replaced_by_const": ("relu/_0__cf__0",)}
KEPT = {"partition_computes": {"Conv2D": True, "AvgPool": True, "Relu": True}, "replaced_by_const": ()}


def row(variant, *, folded, first=1.0, later=0.001, batch=None, graph=None, trials=4, **evidence):
    firsts = tuple(Measurement(first_run_s=first, runs_s=(later,)) for _ in range(trials))
    return Row(variant=variant, graph_bytes=graph or DATA + 900, const_bytes=DATA, nodes=5, build_s=0.001,
               session_s=0.001, first_run_s=first, runs_s=(later, later, later), peak_rss_bytes=10 * DATA,
               rss_bytes={}, max_abs_err=0.0, folded=folded, batch=batch, trials=firsts, **evidence)


def test_compare_gives_no_ratio_across_the_regime_change():
    config = {"batch": 1000, "dtype": "float64", "runs": 3, "trials": 4, "seed": 0}
    fed = Row(variant="placeholder", graph_bytes=450, const_bytes=0, nodes=5, build_s=0.001, session_s=0.001,
              first_run_s=0.3, runs_s=(0.2, 0.2, 0.2), peak_rss_bytes=10 * DATA, max_abs_err=0.0,
              trials=tuple(Measurement(first_run_s=0.3, runs_s=(0.2,)) for _ in range(4)))
    fed5 = replace(fed, trials=fed.trials + fed.trials[:1])

    def said(*rows):
        return words(" ".join(why.answer_and_findings(results("compare", config, rows))[1]))

    # Both first runs are longer by the judge (1 s against 0.3 s, four fresh workers a side, p=0.029) ...
    text = said(row("constant", folded=True, **FOLDED), fed)
    assert ("In constant, constant folding replaced the network: the graph that ran after the first run holds no "
            "Conv2D; the Const relu/_0__cf__0, made by folding, stands in its place (partition graphs).") in text
    assert ("First run longer than placeholder's 300.0 ms, paid once before the first "
            "result: constant 1.00 s, differs (x3.33, 95% CI x3.33 to x3.34; n=4 and 4, p=0.029)") in text
    # ... but across the regime change no first/later ratio is given, nor a comparison of later runs.
    assert "First run over median later run" not in text and "Later runs take" not in text
    # Unfolded, the later runs join the first run's family of two, which four workers a side cannot reject: five.
    kept = said(row("constant", folded=False, later=0.2, trials=5, **KEPT), fed5)
    assert ("In constant, the graph that ran after the first run still holds Conv2D (partition graphs): the network "
            "was not folded, and later runs compute it.") in kept and "replaced the network" not in kept
    assert ("First run over median later run: 5.0x (constant), against 1.5x for placeholder. First run longer than "
            "placeholder's 300.0 ms, paid once before the first result: constant 1.00 s, differs (x3.33, 97.5% CI "
            "x3.33 to x3.34; n=5 and 5, p=0.0079, Holm p=0.016 over 2)") in kept


def test_no_regime_is_said_without_the_partition_graphs():
    # A row with no partition graphs (an older document) has only the worker's folded flag: no sentence rests on it.
    assert why.regime_sentences([row("constant", folded=True), row("constant", folded=False)]) == []
    only = why.regime_sentences([row("constant", folded=True, **FOLDED), row("numpy", folded=False)])
    assert len(only) == 1 and only[0].startswith("In constant, constant folding replaced the network")


def sweep_report(points):
    rows = tuple(row("constant", folded=f, batch=b, graph=b * 8192 + extra, later=t) for b, f, extra, t in points)
    config = {"batches": [p[0] for p in points], "dtype": "float64", "runs": 3, "variants": ["constant"]}
    return results("sweep", config, rows, extra={"fit": [f.to_dict() for f in fits.fit_all(rows, ["constant"])],
                                                 "tf_error": None})


def test_sweep_names_the_boundary_and_fits_the_graphdef_on_every_batch():
    # Folding rewrites the session's partition graphs, never the client's GraphDef: one line through every batch.
    report = sweep_report([(500, True, 900, 0.0005), (2000, False, 900, 0.2), (4000, False, 900, 0.4)])
    (fit,) = fits.fits(report)
    assert (fit.points, fit.folded, fit.max_residual_bytes, fit.overhead_bytes) == (3, None, 0, 900)
    text = words(" ".join(growth.answer_and_findings(report)[1]))
    assert "up to batch 500 (output 5,400,000 bytes) and not from batch 2,000" in text
    assert "From batch 2,000 to 4,000" in text and "From batch 500" not in text
    assert ("The classic folder keeps a result of at most 10,485,760 bytes (10 MiB) unless "
            "OptimizerOptions.max_folded_constant_in_bytes sets another, and sweep leaves it at that default: that "
            "limit lies between them.") in text
    assert "The growth of the runs uses batch 2,000 and up only; the GraphDef's fit uses every batch" in text


def test_sweep_asks_for_full_trials_where_later_runs_are_too_few_and_trials_where_first_runs_are():
    report = sweep_report([(2000, False, 900, 0.2), (4000, False, 900, 0.4)])
    report = replace(report, config=replace(report.config, trials=4, full_trials=1))
    text = words(" ".join(growth.answer_and_findings(report)[1]))
    assert "run with --full-trials 4 or more" in text
    from tfgraphs.findings.sweep import more_samples
    from tfgraphs.records.judge import judge
    few = judge((1.0,), (0.1,))
    assert more_samples(few, few, "--full-trials") == "; run with --trials 4 (and --full-trials 4 for the later runs) or more"
    assert more_samples(few, few, "--trials") == "; run with --trials 4 or more"
    assert "--full-trials" not in words(" ".join(growth.answer_and_findings(sweep_report([(2000, False, 900, 0.2),
                                                                               (4000, False, 900, 0.4)]))[1]))


def test_a_boundary_below_the_folders_limit_is_not_said_to_bracket_it():
    report = sweep_report([(20, True, 900, 0.0005), (100, False, 900, 0.2), (400, False, 900, 0.4)])
    text = words(" ".join(growth.answer_and_findings(report)[1]))
    assert "that limit does not lie between them" in text and "that limit lies between them" not in text


def test_one_regime_throughout_has_no_boundary():
    report = sweep_report([(10, True, 900, 0.0005), (20, True, 900, 0.0005)])
    assert fits.fits(report)[0].points == 2
    assert "boundary" not in " ".join(growth.answer_and_findings(report)[1]) and "not from batch" not in " ".join(
        growth.answer_and_findings(report)[1])


@pytest.mark.parametrize("values, want", [((True, True), True), ((False, False), False), ((True, False), None)])
def test_trials_agree_on_the_regime_or_say_none(values, want):
    from tfgraphs.records.results import Measurement
    trials = [Measurement(first_run_s=1.0, runs_s=(0.1,), folded=v) for v in values]
    assert Row.from_trials("constant", trials).folded is want


def test_sweep_table_gives_no_first_later_ratio_for_a_folded_point():
    from tfgraphs.render.network import points_table

    report = sweep_report([(500, True, 5000, 0.0005), (2000, False, 900, 0.2)])
    table, legend, _ = points_table(report)
    folded, kept = table.rows
    assert folded[-1] == "yes" and folded[-3] is None
    assert kept[-1] == "no" and kept[-3] == "5.00"
    assert "no first / later ratio" in legend


def test_a_boundary_with_one_batch_past_it_gives_no_growth_of_the_runs_but_fits_the_graphdef():
    report = sweep_report([(500, True, 900, 0.0005), (2000, False, 900, 0.2)])
    assert [(f.points, f.bytes_per_example) for f in fits.fits(report)] == [(2, 8192)]
    text = words(" ".join(growth.answer_and_findings(report)[1]))
    assert ("Only batch 2,000 lies on the side of the largest batch, so no growth of the runs is given for constant "
            "(sweep more batches above the boundary); the GraphDef's fit uses every batch.") in text
    assert "no growth or fit is given" not in text and "From batch" not in text
