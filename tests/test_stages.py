"""The logged first run's stages, timed by TensorFlow's own log lines, and the sentences that rest on them."""

import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import words
from tfgraphs.findings import explain
from tfgraphs.records.results import load
from tfgraphs.spec import tflog

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# One first run of constant at batch 3000, as each supported TensorFlow logged it with spec.tflog.VMODULE.
LOGS = {version: (FIXTURES / f"first-run-log-{version}.txt").read_text().splitlines() for version in ("2.12", "2.21")}
ORDER = [tflog.PLACED, "BuildGraph and Grappler", "partitioning", tflog.FOLDING, tflog.FOLDER_RUN, "the run (step 1)"]


@pytest.fixture
def utc(monkeypatch):
    """2.12 prints local time: the fixtures were logged in UTC."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("version", sorted(LOGS))
def test_every_stage_is_opened_by_one_of_tensorflows_lines_and_they_span_the_run(version, utc):
    lines = LOGS[version]
    spans = tflog.spans(lines)
    assert [s["stage"] for s in spans] == ORDER
    assert [s["source"] for s in spans] == ["session.run", "graph_execution_state", "graph_partition",
                                            "constant_folding", "executor", "executor"]
    assert all(s["seconds"] >= 0 for s in spans)
    # From the worker's mark at session.run to its mark at the return, nothing is left out.
    called, returned = tflog.stamp(lines[0]), tflog.stamp(lines[-1])
    assert sum(s["seconds"] for s in spans) == pytest.approx(returned - called, abs=1e-6)
    # The classic folder's own run of the constant graph computed the network: its executor logged each op.
    assert {"Conv2D", "AvgPool", "Relu"} <= tflog.processed(lines, -1)
    assert {"Conv2D", "AvgPool", "Relu"} <= tflog.processed(lines, 1)


def test_without_the_marks_the_stages_run_from_the_first_line_to_the_last(utc):
    lines = LOGS["2.21"][1:-1]
    spans = tflog.spans(lines)
    # Placement logs each node as it ends; without the mark before it, no stage opens there.
    assert [s["stage"] for s in spans] == ORDER[1:]
    opened = next(line for line in lines if line.endswith("] BuildGraph"))
    assert sum(s["seconds"] for s in spans) == pytest.approx(tflog.stamp(lines[-1]) - tflog.stamp(opened))


def test_marks_alone_time_nothing():
    lines = [LOGS["2.21"][0], "I0000 a line in a form this tool does not read", LOGS["2.21"][-1]]
    assert tflog.marked(lines) and tflog.spans(lines) == []


def test_per_node_lines_are_thinned_to_their_first_and_last():
    line = "I0000 00:00:{t:.6f}    1 executor.cc:879] Process node: {i} step 1 {{{{node n{i}}}}} = Relu[T=DT_DOUBLE]()"
    many = [line.format(t=100 + i / 1000, i=i) for i in range(tflog.KEPT + 50)]
    kept = tflog.logged_lines("\n".join(["garbage", *many]))
    assert kept == many[:tflog.KEPT] + many[-1:]
    assert tflog.spans(kept) == [{"stage": "the run (step 1)", "source": "executor",
                                  "seconds": pytest.approx((tflog.KEPT + 49) / 1000)}]


@pytest.fixture(scope="module")
def rows(explain_json):
    """The tiny real explain's default-config rows (batch 20: the classic folder folded constant), by variant."""
    report = load(explain_json[1])
    return {r.variant: r for r in report.rows if r.preset == "default"}


def test_the_real_log_spans_each_logged_first_run(rows):
    for variant, r in rows.items():
        spans = explain.logged_spans(r)
        assert spans and sum(s["seconds"] for s in spans) >= 0.9 * r.logged_first_run_s, variant
    said = words(" ".join(explain.where_it_went(rows.values())))
    assert "constant [default]: TensorFlow's log lines span " in said


def test_the_network_runs_twice_only_where_the_folder_ran_it_and_did_not_keep_it(rows, utc):
    # Folded at batch 20 (no Conv2D in the graph that ran), and no folder's run for placeholder: silent both.
    assert explain.network_ran_twice([rows["constant"], rows["placeholder"]]) == []
    unkept = replace(rows["placeholder"], first_run_log=tuple(LOGS["2.21"]))
    said = words(" ".join(explain.network_ran_twice([unkept])))
    assert said.startswith("placeholder [default]: the network ran twice in its first run. The executor logged "
                           "Conv2D, AvgPool and Relu in the classic folder's run of the constant graph (")
    assert "so they ran again in the run (step 1) (" in said


def test_a_run_after_the_initializers_is_optimized_again_only_where_one_came_first(rows):
    said = words(" ".join(explain.optimized_again(rows.values())))
    assert said.startswith("variable [default]: its first run came after the initializer's run in the same session, "
                           "and TensorFlow logged BuildGraph and Grappler, partitioning and classic folder's search "
                           "again")
    assert "constant [default]" not in said and "placeholder [default]" not in said
