"""Every measuring command opens with its answer: a few lines within 100 columns, each said only on its evidence."""

from dataclasses import replace
from pathlib import Path

import pytest

from tfgraphs.fileio import read_doc
from tfgraphs.findings.compare import answer_and_findings
from tfgraphs.records.results import load
from tfgraphs.api.commands import render
from tfgraphs.render.page import SHOWN, WIDTH

FIXTURES = Path(__file__).parent / "fixtures"
MEASURED = ["compare", "compare-folded", "compare-all", "compare-remote", "explain", "explain-remote", "explain-trials", "explain-single", "sweep",
            "shapes", "pitfalls"]


def saved(name):
    return load(read_doc(FIXTURES / f"{name}.json"))


def answer_block(text):
    """The lines between the header and the first table: the answer, with the line naming the figure."""
    return text.split("\n\n")[1].splitlines()


@pytest.mark.parametrize("name", MEASURED)
def test_the_answer_comes_first_in_at_most_six_lines_of_100_columns(name):
    block = answer_block(render(saved(name)))
    assert 2 <= len(block) <= 6 and max(map(len, block)) <= WIDTH, block
    assert block[-1].startswith("Figure: --plot PATH") or block[-2].startswith("Figure: --plot PATH"), block


@pytest.mark.parametrize("name", ["compare", "compare-folded", "compare-all"])
def test_compare_fits_50_lines_and_verbose_prints_every_finding_and_table(name):
    report = saved(name)
    short, whole = render(report), render(report, verbose=True)
    assert len(short.splitlines()) <= 50
    said = answer_and_findings(report)[1]
    assert short.count("\n- ") == min(len(said), SHOWN) and whole.count("\n- ") == len(said)
    assert "\nWhy\n" in whole and "\nWhy\n" not in short and "\nPhases (ms)\n" in short
    if len(said) > SHOWN:
        assert f"({SHOWN} of {len(said)}, most important first; --verbose shows all" in short


def test_the_folded_regime_is_said_from_the_folded_field_and_only_then():
    report = saved("compare-folded")
    assert any("no Conv2D ran, folded from the graph's X (new data needs a feed)" in s
               for s in answer_and_findings(report)[0])
    computed = replace(report, rows=tuple(replace(r, folded=False if r.folded else r.folded) for r in report.rows))
    unmeasured = replace(report, rows=tuple(replace(r, folded=None) for r in report.rows))
    for wrong in (computed, unmeasured):
        assert not any("folded" in s for s in answer_and_findings(wrong)[0])
    # One worker a variant cannot say "no different" (nor "differs"), as the old line did: its later runs are
    # samples of that worker, not of the variant. The embedded variants' workers are pooled: two against one.
    (later,) = [s for s in answer_and_findings(computed)[0] if s.startswith("Later runs vs fed: ")]
    assert later == "Later runs vs fed: cannot tell with n=2 and 1; --trials 4."
    # Two workers a variant, whose six later runs put constant's below all of placeholder's: still two workers.
    mixed = saved("compare")
    mixed = replace(mixed, rows=tuple(replace(r, folded=False if r.folded else r.folded) for r in mixed.rows))
    (later,) = [s for s in answer_and_findings(mixed)[0] if s.startswith("Later runs vs fed: ")]
    assert later == "Later runs vs fed: cannot tell with n=4 and 2; --trials 4."


def _first_runs(report, embedded, fed):
    """The report with one trial per first run given: embedded for numpy and constant, fed for the others."""
    def trials(row, firsts):
        return tuple(replace(row.trials[0], first_run_s=s) for s in firsts)
    return replace(report, rows=tuple(replace(r, trials=trials(r, embedded if r.variant in ("numpy", "constant")
                                                                else fed)) for r in report.rows))


def test_the_first_run_is_judged_by_the_rank_test_on_fresh_workers():
    report = saved("compare")
    apart = answer_and_findings(_first_runs(report, (0.050, 0.051, 0.052, 0.053), (0.020, 0.021, 0.022, 0.023)))[0]
    # numpy's and constant's workers pooled, as the line is about embedded X: eight against four.
    assert any(s.startswith("First run, embedded vs fed: differs (x2.39, 95% CI x2.") and s.endswith("; n=8 and 4).")
               for s in apart), apart
    too_few = answer_and_findings(_first_runs(report, (0.050, 0.051), (0.020, 0.021)))[0]
    assert any(s.startswith("First run, embedded vs fed: cannot tell with n=4 and 2; --trials 4.")
               for s in too_few), too_few
    # Interleaved first runs, four a variant: the test finds nothing and the interval is too wide for "no difference".
    mixed = answer_and_findings(_first_runs(report, (0.020, 0.040, 0.030, 0.025), (0.021, 0.039, 0.030, 0.026)))[0]
    assert any(s.startswith("First run, embedded vs fed: cannot tell with n=8 and 4 (x") for s in mixed), mixed
    assert not any("differs" in s or "no difference" in s for s in too_few + mixed)
    # At the seed's size, in seconds, the longest numbers a run prints still fit.
    seconds = replace(report, rows=tuple(replace(r, first_run_s=r.first_run_s * 1000, init_s=r.init_s and 233.8,
                                                 runs_s=tuple(1000 * t for t in r.runs_s)) for r in report.rows))
    for case in (((0.050, 0.051, 0.052), (0.020, 0.021, 0.022)), ((33.1, 31.4, 32.0, 30.2), (2.9, 2.7, 2.8, 2.6)),
                 ((33.1, 31.4, 32.0, 30.2, 29.0), (2.9, 32.7, 2.8, 2.6, 30.1))):
        block = answer_block(render(_first_runs(seconds, *case)))
        assert len(block) <= 6 and max(map(len, block)) <= WIDTH, block


def test_three_first_runs_a_side_apart_cannot_tell_and_four_differ():
    # compare --batch 2500 --dtype float32 --trials 3 printed "The first runs do not differ beyond their spread
    # (n>=3 a side)": numpy's first runs were 543 / 808 / 1176 ms, placeholder's 171 / 187 / 423 ms. They do not
    # overlap, and yet the range rule (the medians' distance, 621 ms, within numpy's range, 633 ms) called them no
    # different. Three a side can neither reject (smallest two-sided p 0.1) nor bound an interval.
    numpy, placeholder = (0.543, 0.808, 1.176), (0.171, 0.187, 0.423)
    assert 0.808 - 0.187 < 1.176 - 0.543
    report = saved("compare")
    three, findings = answer_and_findings(_first_runs(report, numpy, placeholder))
    assert not any("no difference" in s or "do not differ" in s for s in three)
    # Each variant's three workers against placeholder's three cannot tell; embedded X, numpy's and constant's six
    # workers pooled, against placeholder's three, can.
    assert any(s.startswith("First run against placeholder's") and "cannot tell with n=3 and 3 (" in s
               for s in findings), findings
    assert any(s.startswith("First run, embedded vs fed: differs (x3.18, 95% CI") and s.endswith("; n=6 and 3).")
               for s in three), three
    four = answer_and_findings(_first_runs(report, numpy + (0.9,), placeholder + (0.2,)))[0]
    assert any(s.startswith("First run, embedded vs fed: differs (x") and "95% CI" in s and "n=8 and 4" in s
               for s in four), four


def test_one_trial_cannot_tell_and_names_the_trials_that_can():
    # The default `python scripts/compare_inputs.py` (one trial) ended its answer with "First run, embedded minus
    # fed: +3.21 to +3.29 s, on 1 a side: too few to judge (--trials 3)": three could not have judged it either.
    report = saved("compare")
    one = answer_and_findings(_first_runs(report, (3.4,), (0.15,)))[0]
    assert any(s.startswith("First run, embedded vs fed: cannot tell with n=2 and 1; --trials 4.")
               for s in one), one
    block = answer_block(render(_first_runs(report, (3.4,), (0.15,))))
    assert len(block) <= 6 and max(map(len, block)) <= WIDTH, block
    # With four a side, the verdict comes with its interval.
    four = answer_and_findings(_first_runs(report, (3.4, 3.3, 3.5, 3.45), (0.15, 0.16, 0.14, 0.155)))[0]
    assert any(s.startswith("First run, embedded vs fed: differs (x22.4, 95% CI x2") and s.endswith("; n=8 and 4).")
               for s in four), four


def test_each_answer_line_names_its_evidence_and_goes_without_it():
    report = saved("compare")
    lines = answer_and_findings(report)[0]
    assert all(line.evidence for line in lines), lines
    bare = replace(report, rows=tuple(replace(r, trials=(), graph_bytes=None) for r in report.rows))
    told = answer_and_findings(bare)[0]
    assert not any(s.startswith(("Embedded X", "Fed X", "First run, embedded", "Embedding adds")) for s in told), told


def test_the_html_page_puts_the_answer_and_figure_before_the_tables_and_folds_findings_past_eight():
    report = saved("compare-all")
    page = render(report, "html", None, verbose=True, figure='<img alt="f">')
    assert page.index("tfgraphs-answer") < page.index('<img alt="f">') < page.index("<table")
    assert page.count("<li>") == len(answer_and_findings(report)[1]) and "<details><summary>" in page
