"""Every measuring command opens with its answer: a few lines within 100 columns, each said only on its evidence."""

from dataclasses import replace
from pathlib import Path

import pytest

from tfgraphs.fileio import read_doc
from tfgraphs.findings import compare_answer
from tfgraphs.findings.compare import sentences
from tfgraphs.records.results import load
from tfgraphs.render import render
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
    said = sentences(report)
    assert short.count("\n- ") == min(len(said), SHOWN) and whole.count("\n- ") == len(said)
    assert "\nWhy\n" in whole and "\nWhy\n" not in short and "\nPhases (ms)\n" in short
    if len(said) > SHOWN:
        assert f"({SHOWN} of {len(said)}, most important first; --verbose shows all)" in short


def test_the_folded_regime_is_said_from_the_folded_field_and_only_then():
    report = saved("compare-folded")
    assert any("no Conv2D ran, folded from the graph's X (new data needs a feed)" in s
               for s in compare_answer.answer(report))
    computed = replace(report, rows=tuple(replace(r, folded=False if r.folded else r.folded) for r in report.rows))
    unmeasured = replace(report, rows=tuple(replace(r, folded=None) for r in report.rows))
    for wrong in (computed, unmeasured):
        assert not any("folded" in s for s in compare_answer.answer(wrong))
    assert any(s.startswith("Later runs of numpy and constant do not differ measurably") or
               s.startswith("Later runs against placeholder's") for s in compare_answer.answer(computed))


def _first_runs(report, embedded, fed):
    """The report with one trial per first run given: embedded for numpy and constant, fed for the others."""
    def trials(row, firsts):
        return tuple(replace(row.trials[0], first_run_s=s) for s in firsts)
    return replace(report, rows=tuple(replace(r, trials=trials(r, embedded if r.variant in ("numpy", "constant")
                                                                else fed)) for r in report.rows))


def test_the_first_run_is_called_slower_only_on_three_fresh_workers_a_side_beyond_their_spread():
    report = saved("compare")
    slower = compare_answer.answer(_first_runs(report, (0.050, 0.051, 0.052), (0.020, 0.021, 0.022)))
    assert any(s.startswith("Embedding adds 30.0 ms to the first run, once (n>=3, past the spread)") for s in slower), slower
    too_few = compare_answer.answer(_first_runs(report, (0.050, 0.051), (0.020, 0.021)))
    assert any(s.startswith("First run, embedded minus fed: +30.0 ms, on 2 a side: too few to judge") for s in too_few), too_few
    within = compare_answer.answer(_first_runs(report, (0.020, 0.040, 0.030), (0.021, 0.039, 0.030)))
    assert any(s.startswith("The first runs do not differ beyond their spread") for s in within), within
    assert not any("Embedding adds" in s for s in too_few + within)
    # At the seed's size, in seconds, the longest numbers a run prints still fit.
    seconds = replace(report, rows=tuple(replace(r, first_run_s=r.first_run_s * 1000, init_s=r.init_s and 233.8,
                                                 runs_s=tuple(1000 * t for t in r.runs_s)) for r in report.rows))
    for case in ((0.050, 0.051, 0.052), (0.020, 0.021, 0.022)), ((33.1, 31.4, 32.0), (2.9, 2.7, 2.8)):
        block = answer_block(render(_first_runs(seconds, *case)))
        assert len(block) <= 6 and max(map(len, block)) <= WIDTH, block


def test_each_answer_line_names_its_evidence_and_goes_without_it():
    report = saved("compare")
    lines = compare_answer.answer(report)
    assert all(line.evidence for line in lines), lines
    bare = replace(report, rows=tuple(replace(r, trials=(), graph_bytes=None) for r in report.rows))
    told = compare_answer.answer(bare)
    assert not any(s.startswith(("Embedded X", "Fed X", "First run, embedded", "Embedding adds")) for s in told), told


def test_the_html_page_puts_the_answer_and_figure_before_the_tables_and_folds_findings_past_eight():
    report = saved("compare-all")
    page = render(report, "html", None, verbose=True, figure='<img alt="f">')
    assert page.index("tfgraphs-answer") < page.index('<img alt="f">') < page.index("<table")
    assert page.count("<li>") == len(sentences(report)) and "<details><summary>" in page
