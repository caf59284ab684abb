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
AFTER_FOLDER = (f"the folder's last node and its run's end, GraphRunner's copy of its result, the classic optimizer's rest, "
                f"{tflog.EXECUTOR}, {tflog.RUN_SET_UP}")
ORDER = ["session.run's fetches checked, the graph handed to the session, made a Graph", "pre-placement passes", "placement", "the placer's end", "post-placement passes",
         "back to Python, to BuildGraph", tflog.GRAPPLER_SET_UP, "Grappler",
         "Grappler's output made a Graph, pruned to the feeds and fetches", "post-rewrite passes",
         "the client graph copied, partitioned", "partitions made Graphs", "post-partitioning passes",
         tflog.TO_COUNT, "the folder's GraphRunner: its graph copied, rewritten for its fetches, its executor made",
         tflog.FOLDER_RUN, AFTER_FOLDER, "the run's start", "the run (step 1)", "the run's end, its trace collected",
         "return to Python"]
# The line each event of that run is, by its file and the start of its message (2.12's, then 2.21's, where they
# differ): what each stage's name rests on.
EVIDENCE = {"passes": ("optimization_registry.cc", ("Starting optimization of a group", "Running optimization phase")),
            "grouped": ("optimization_registry.cc", ("Finished optimization of a group",)),
            "placed": ("placer.cc", ("W(Const) placed on",)), "buildgraph": ("graph_execution_state.cc", ("BuildGraph",)),
            "grappler": ("meta_optimizer.cc", ("Starting optimization for grappler item",)),
            "grappled": ("meta_optimizer.cc", ("Optimized 0 functions",)),
            "partitioned": ("graph_partition.cc", ("Added send/recv",)),
            "searched": ("constant_folding.cc", ("Constant foldable 7 : 8",)),
            "first": ("executor.cc", ("Process node: 0 step",)), "last": ("executor.cc", ("Process node: 7 step",)),
            "profiler": ("profiler_session.cc", ("Profiler session initializing.",)),
            "teardown": ("profiler_session.cc", ("Profiler session tear down.",))}
# Names that would hide logged work (the post-placement passes and the feeds, the post-rewrite passes, the
# post-partitioning passes, GraphRunner's copy of the folded result): each of those is a stage of its own.
HIDING = ("post-placement passes, to BuildGraph", "Grappler's output made a Graph, pruned, partitioned",
             "partitions made Graphs, classic optimizer to its folder's count",
             f"after the folder's run: {tflog.EXECUTOR}")
# Names that leave out work between their lines (the function library runtime and the constant graph before the
# folder's count, GraphRunner's copy and rewrite of its graph, session.run's own checks, Grappler's item and cluster,
# the folder's last node): never a whole stage's name.
PARTIAL = ("the classic optimizer to its folder's count", "the folder's GraphRunner and its executor made",
           "BuildGraph: Grappler's GraphDef made", "after the folder's run: GraphRunner's copy of its result",
           "graph handed to the session, made a Graph")
# The groups of optimization passes (optimization_registry.h): each stage named for one is bounded by its own lines.
GROUPS = {"pre-placement passes": 0, "post-placement passes": 1, "post-rewrite passes": 2,
          "post-partitioning passes": 3}


@pytest.fixture
def utc(monkeypatch):
    """2.12 prints local time: the fixtures were logged in UTC."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("version", sorted(LOGS))
def test_every_stage_lies_between_two_lines_and_is_named_for_the_code_between_them(version, utc):
    lines = LOGS[version]
    spans = tflog.spans(lines, 0)   # constant: nothing fed
    assert [s["stage"] for s in spans] == ORDER
    # The same log, had the run fed X, and where the document does not say: the span names the feeds as such.
    assert f"back to Python, {tflog.FEEDS}" in [s["stage"] for s in tflog.spans(lines, 16384)]
    assert "back to Python, any fed arrays made tensors, to BuildGraph" in [s["stage"] for s in tflog.spans(lines)]
    assert not [s for s in spans if "fed" in s["stage"]]
    bounds = {s["stage"]: (s["source"], s["to"]) for s in spans}
    assert bounds["Grappler"] == ("Grappler starts", "Optimized N functions")
    assert bounds["the client graph copied, partitioned"] == ("pass group 2 finished", "Added send/recv")
    assert bounds[tflog.TO_COUNT] == ("pass group 3 finished", "folder's count")
    assert bounds["back to Python, to BuildGraph"] == ("pass group 1 finished", "BuildGraph")
    for stage, group in GROUPS.items():
        assert bounds[stage] == (f"pass group {group} starts", f"pass group {group} finished")
    # The evidence: each event is the line its kind names, at the time the stage opens or closes.
    for kind, step, at in tflog.events(lines):
        line = next(line for line in lines if tflog.stamp(line) == at)
        if kind in ("called", "returned"):
            assert line.endswith(tflog.CALLED if kind == "called" else tflog.RETURNED)
            continue
        file, messages = EVIDENCE[kind]
        assert f"{file}:" in line and line.split("] ", 1)[1].startswith(messages), (kind, line)
        assert step in ((0, 1, 2, 3) if kind in ("passes", "grouped") else (None, -1, 1))
        if kind == "grouped":
            assert line.endswith(f"group {step}")
    assert all(s["seconds"] >= 0 for s in spans)
    # Partitioning ends on "Added send/recv", so no stage after that line is named for it, nor the folder's search
    # for what follows its count; the pass groups, the fed arrays and GraphRunner's copy have stages named for them.
    assert not {"partitioning", "classic folder's search", "BuildGraph and Grappler", *HIDING, *PARTIAL} & {
        s["stage"] for s in spans}
    # From the worker's mark at session.run to its mark at the return, nothing is left out; TensorFlow's own lines
    # bound all but the first and last stage.
    called, returned = tflog.stamp(lines[0]), tflog.stamp(lines[-1])
    assert sum(s["seconds"] for s in spans) == pytest.approx(returned - called, abs=1e-6)
    assert [s["own"] for s in spans] == [False] + [True] * (len(ORDER) - 2) + [False]
    own, whole = tflog.own_share(lines)
    assert own == pytest.approx(sum(s["seconds"] for s in spans[1:-1])) and whole == pytest.approx(returned - called)
    # The classic folder's own run of the constant graph computed the network: its executor logged each op.
    assert {"Conv2D", "AvgPool", "Relu"} <= tflog.processed(lines, -1)
    assert {"Conv2D", "AvgPool", "Relu"} <= tflog.processed(lines, 1)


def test_without_the_marks_the_stages_run_from_tensorflows_first_line_to_its_last(utc):
    lines = LOGS["2.21"][1:-1]
    spans = tflog.spans(lines, 0)
    assert [s["stage"] for s in spans] == ORDER[1:-1] and all(s["own"] for s in spans)
    assert sum(s["seconds"] for s in spans) == pytest.approx(tflog.stamp(lines[-1]) - tflog.stamp(lines[0]))


def test_a_log_without_the_profilers_lines_ends_the_run_at_its_last_node(utc):
    lines = [line for line in LOGS["2.21"] if "profiler_session.cc" not in line]
    stages = [s["stage"] for s in tflog.spans(lines)]
    assert stages[-3:] == [AFTER_FOLDER, "the run (step 1)", "the run's end, return to Python"]


def test_marks_alone_time_nothing():
    lines = [LOGS["2.21"][0], "I0000 a line in a form this tool does not read", LOGS["2.21"][-1]]
    assert tflog.marked(lines) and tflog.spans(lines) == [] and tflog.own_share(lines) is None


def test_per_node_lines_are_thinned_to_their_first_and_last():
    line = "I0000 00:00:{t:.6f}    1 executor.cc:879] Process node: {i} step 1 {{{{node n{i}}}}} = Relu[T=DT_DOUBLE]()"
    many = [line.format(t=100 + i / 1000, i=i) for i in range(tflog.KEPT + 50)]
    kept = tflog.logged_lines("\n".join(["garbage", *many]))
    assert kept == many[:tflog.KEPT] + many[-1:]
    assert tflog.spans(kept) == [{"stage": "the run (step 1)", "source": "step 1 first node",
                                  "to": "step 1 last node", "seconds": pytest.approx((tflog.KEPT + 49) / 1000),
                                  "own": True}]


@pytest.fixture(scope="module")
def rows(explain_json):
    """The tiny real explain's default-config rows (batch 20: the classic folder folded constant), by variant."""
    report = load(explain_json[1])
    return {r.variant: r for r in report.rows if r.preset == "default"}


def test_the_real_log_spans_each_logged_first_run(rows):
    for variant, r in rows.items():
        spans = explain.logged_spans(r)
        assert spans and sum(s["seconds"] for s in spans) >= 0.9 * r.logged_first_run_s, variant
        bounds = {s["stage"]: (s["source"], s["to"]) for s in spans}
        assert not {*HIDING, *PARTIAL} & set(bounds), variant
        # A run that fed nothing has no span named for fed arrays (constant, variable, dataset-embedded here).
        assert r.bytes_fed_per_run is not None and not (r.bytes_fed_per_run == 0 and
                                                        [s for s in bounds if "fed arrays" in s]), variant
        for stage, group in GROUPS.items():
            # The variable's logged run comes after its initializer's: its graph was placed by then.
            assert group < 2 and variant == "variable" or bounds[stage] == (f"pass group {group} starts",
                                                                             f"pass group {group} finished"), variant
    # The fed arrays are made tensors after the graph is extended and before BuildGraph: placeholder's X among them.
    bounds = {s["stage"]: (s["source"], s["to"]) for s in explain.logged_spans(rows["placeholder"])}
    assert bounds[f"back to Python, {tflog.FEEDS}"] == ("pass group 1 finished", "BuildGraph")
    # Folded at batch 20: GraphRunner's copy of relu's value made a Const before the folder's "Replacing" line.
    bounds = {s["stage"]: (s["source"], s["to"]) for s in explain.logged_spans(rows["constant"])}
    assert bounds["GraphRunner's copy of the folder's result, made a Const"] == ("step -1 last node",
                                                                                 "folder's Replacing")
    said = words(" ".join(explain.where_it_went(rows.values())))
    assert "constant [default]: TensorFlow's own lines, from its first to its last, bound " in said
    assert "TensorFlow's log lines span" not in said and "post-partitioning passes" in said
    assert "partitioning" not in said.replace("post-partitioning passes", "")
    assert not [name for name in HIDING if name in said]


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
                           "and TensorFlow logged BuildGraph, Added send/recv and folder's count again")
    assert "constant [default]" not in said and "placeholder [default]" not in said


def test_a_fed_graph_is_said_to_need_its_fed_values_and_no_more(rows):
    # The placeholder's graph that ran takes X and W as fed _Arg nodes: Conv2D needs X's values, and that is all
    # this run shows (Grappler does fold what depends only on a fed tensor's static shape).
    said = words(" ".join(explain.folding_evidence([rows["placeholder"]])))
    assert said == ("placeholder [default]: not folded. The graph that ran receives its inputs as 2 fed _Arg nodes and "
                    f"still holds {tflog.named('Conv2D', rows['placeholder'].partition_ops)} (partition graphs): "
                    "Conv2D needs the values fed for X, so it cannot be folded.")
    assert "no op that needs a fed value" not in said
