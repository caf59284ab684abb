"""explain: presets, traces, TensorBoard graphs, and the attribution arithmetic."""

import json

import pytest

from conftest import run_cli, words
from tfgraphs.findings.explain import sentences, share_text
from tfgraphs.fileio import write_doc
from tfgraphs.records.explain import attribute, attributions
from tfgraphs.records.report import Report
from tfgraphs.records.rows import Row
from tfgraphs.spec import network
from tfgraphs.worker.sessions import session_config


def set_fields(message, prefix=""):
    """Dotted paths of every field set in a protobuf message."""
    paths = set()
    for field, value in message.ListFields():
        path = prefix + field.name
        if field.message_type is not None and not getattr(field, "is_repeated", False):
            paths |= set_fields(value, path + ".")
        else:
            paths.add(f"{path}={value}")
    return paths


@pytest.mark.parametrize("preset, expected", [
    ("default", set()),
    ("no-grappler", {"graph_options.rewrite_options.disable_meta_optimizer=True"}),
    ("no-folding", {"graph_options.rewrite_options.constant_folding=2",
                    "graph_options.optimizer_options.opt_level=-1"}),
    ("bare", {"graph_options.rewrite_options.disable_meta_optimizer=True",
              "graph_options.rewrite_options.constant_folding=2",
              "graph_options.optimizer_options.opt_level=-1"}),
])
def test_presets_set_exactly_their_fields(preset, expected):
    # do_constant_folding=False equals proto3's default, so it never shows as a set field.
    assert set_fields(session_config(preset)) == expected


@pytest.fixture(scope="module")
def explained(tmp_path_factory):
    root = tmp_path_factory.mktemp("explain")
    proc = run_cli("explain", "--batch", 20, "--runs", 2, "--presets", "default,bare", "--trace", root / "traces",
                   "--tensorboard", root / "tb", "--json", root / "e.json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root, json.loads((root / "e.json").read_text()), proc


def later_types(row):
    return {op["type"] for op in row["top_ops"] if op["later_ms"] is not None}


def test_runs_and_what_ran(explained):
    _, doc, _ = explained
    rows = {(r["variant"], r["preset"]): r for r in doc["runs"]}
    assert sorted(rows) == [(v, p) for v in ("constant", "placeholder", "variable") for p in ("bare", "default")]
    for (variant, preset), r in rows.items():
        assert r["status"] == "ok" and len(r["runs_s"]) == 2 and r["first_run_s"] > 0
        assert any(op["type"] == "Conv2D" for op in r["top_ops"]) or (variant, preset) == ("constant", "default")
    # Every variant still computes the convolution in later runs with the optimizers off ...
    for variant in ("constant", "placeholder", "variable"):
        assert "Conv2D" in later_types(rows[(variant, "bare")])
    # ... while by default an output this small is folded into a constant before the first run.
    assert "Conv2D" not in later_types(rows[("constant", "default")])
    assert "Conv2D" in later_types(rows[("placeholder", "default")])
    default = rows[("constant", "default")]
    excess = default["first_run_s"] - sum(default["runs_s"]) / 2   # the median of two runs
    assert doc["attribution"] == [{"variant": "constant", "excess_s": pytest.approx(excess), "grappler_s": None,
                                   "folding_s": None, "rest_s": None, "interaction_s": None}]
    # The traced later run decides the regime of the embedded rows; the others record none.
    assert rows[("constant", "default")]["folded"] is True and rows[("constant", "bare")]["folded"] is False
    assert "folded" not in rows[("placeholder", "default")]
    single = doc["single_thread"]
    assert (single["status"], single["variant"], single["intra_op_threads"], len(single["runs_s"])) == (
        "ok", "placeholder", 1, 2)


def test_trace_files(explained):
    root = explained[0]
    names = sorted(p.name for p in (root / "traces").iterdir())
    assert names == sorted(f"{v}.{p}.{run}-run.trace.json" for v in ("constant", "placeholder", "variable")
                           for p in ("default", "bare") for run in ("first", "second"))
    for path in (root / "traces").iterdir():
        trace = json.loads(path.read_text())
        assert isinstance(trace["traceEvents"], list) and trace["traceEvents"]


def test_tensorboard_graph_holds_the_data(explained):
    import tensorflow as tf

    root = explained[0]
    assert sorted(p.name for p in (root / "tb").iterdir()) == ["constant", "placeholder", "variable"]
    consts = {}
    for variant in ("constant", "placeholder"):
        (events,) = list((root / "tb" / variant).iterdir())
        graphs = [e.graph_def for e in tf.compat.v1.train.summary_iterator(str(events)) if e.graph_def]
        assert len(graphs) == 1
        graph_def = tf.compat.v1.GraphDef.FromString(graphs[0])
        consts[variant] = {n.name: len(n.attr["value"].tensor.tensor_content) for n in graph_def.node
                           if n.op == "Const"}
    assert consts["constant"]["X"] == network.data_bytes(20, "float64")
    assert "X" not in consts["placeholder"]


def make_row(variant, preset, excess_s, later=1.0):
    return Row(variant=variant, preset=preset, first_run_s=later + excess_s, runs_s=(later, later, later),
               graph_bytes=100, trials=())


def test_attribution_arithmetic(tmp_path):
    excesses = {"default": 10.0, "no-grappler": 6.0, "no-folding": 7.0, "bare": 2.0}
    rows = [make_row("constant", p, e) for p, e in excesses.items()]
    rows += [make_row("placeholder", p, 2.0) for p in excesses]
    (a,) = attributions(rows)
    assert a == {"variant": "constant", "excess_s": 10.0, "grappler_s": 4.0, "folding_s": 3.0, "rest_s": 2.0,
                 "interaction_s": 1.0}
    report = Report("explain", {"batch": 10, "dtype": "float64", "runs": 3, "trials": 1, "seed": 0},
                    tuple(rows), extra={"attribution": [a]})
    path = tmp_path / "hand.json"
    write_doc(report.to_dict(), path)
    proc = run_cli("report", path)
    assert proc.returncode == 0, proc.stderr
    said = words(proc.stdout)
    assert "Where the first run's excess goes (s)" in said
    assert "4.00 (40%)" in said and "3.00 (30%)" in said and "1.00 (10%)" in said
    assert "the biggest measured contributor is Grappler" in said
    assert "the interaction term is 1.00 s (10%)" in said
    assert ("With both optimizers off, constant's first-run excess (2.00 s) is not measurably different from "
            "placeholder's (2.00 s, judged against a spread of 0.0 ms)") in said
    assert "placeholder: no-grappler, no-folding, bare made no measurable difference" in said


def test_no_excess_nothing_to_attribute(tmp_path):
    rows = [make_row("constant", p, 0.0) for p in ("default", "no-grappler", "no-folding", "bare")]
    report = Report("explain", {"batch": 10, "dtype": "float64", "runs": 3, "trials": 1, "seed": 0},
                    tuple(rows), extra={"attribution": attributions(rows)})
    path = tmp_path / "zero.json"
    write_doc(report.to_dict(), path)
    proc = run_cli("report", path)
    assert proc.returncode == 0, proc.stderr
    said = words(proc.stdout)
    assert "nothing to attribute" in said and "biggest" not in said
    assert "constant default 1.00 1.00 0 100" in said


def test_each_variant_judged_by_its_own_spread():
    noisy = [Row(variant="constant", preset=p, first_run_s=30.0, runs_s=(1.0, 1.5, 2.5), graph_bytes=100)
             for p in ("default", "bare")]
    fed = [make_row("placeholder", "default", 0.1, later=2.4), make_row("placeholder", "bare", 1.2, later=2.4)]
    report = Report("explain", {"batch": 10, "dtype": "float64", "runs": 3, "trials": 1, "seed": 0},
                    tuple(noisy + fed), extra={"attribution": []})
    text = "\n".join(sentences(report))
    assert "placeholder: the first run took 3.60 s with bare, against 2.50 s by default" in text
    assert "placeholder: bare made no measurable difference" not in text
    assert ("constant: bare made no measurable difference to the first run (30.00 s against 30.00 s by default, "
            "within that variant's spread of 1.50 s)") in text


def test_attribution_needs_every_preset():
    assert attribute({"default": 3.0, "bare": 1.0}) == {
        "excess_s": 3.0, "grappler_s": None, "folding_s": None, "rest_s": None, "interaction_s": None}


@pytest.mark.parametrize("args, message", [
    (["--trace", __file__], "exists and is not a folder"),
    (["--presets", "default,turbo"], "unknown preset turbo"),
    (["--presets", ""], "no preset given"),
    (["--variants", "nope"], "unknown variant nope"),
])
def test_bad_names_exit_2(args, message):
    proc = run_cli("explain", *args)
    assert proc.returncode == 2 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


def four_presets(excesses, later=1.0, spread=0.0):
    return [Row(variant="constant", preset=p, first_run_s=later + e, graph_bytes=100,
                runs_s=(later - spread / 2, later, later + spread / 2)) for p, e in excesses.items()]


def explain_text(rows, single=None):
    extra = {"attribution": attributions(rows), **({"single_thread": single} if single else {})}
    report = Report("explain", {"batch": 10, "dtype": "float64", "runs": 3, "trials": 3, "seed": 0}, tuple(rows),
                    extra=extra)
    return words(" ".join(sentences(report)))


def test_folding_share_beside_one_single_threaded_evaluation():
    rows = four_presets({"default": 10.0, "no-grappler": 9.0, "no-folding": 4.0, "bare": 1.0}, spread=0.2)
    single = {"status": "ok", "variant": "placeholder", "runs_s": [5.9, 6.0, 6.1]}
    text = explain_text(rows, single)
    assert "constant-folding share (6.00 s) against one single-threaded evaluation of the network (6.00 s" in text
    assert "they match within a spread of 200.0 ms" in text and "common-subexpression elimination" in text
    far = explain_text(rows, {**single, "runs_s": [1.9, 2.0, 2.1]})
    assert "the folding share is 4.00 s more, beyond a spread of 200.0 ms" in far
    assert "single-threaded" not in explain_text(rows, {"status": "failed", "error": "boom"})


@pytest.mark.parametrize("bare, sign", [(1.0, "positive"), (5.0, "negative")])
def test_interaction_sign_is_explained(bare, sign):
    # interaction = excess - grappler - folding - rest = 10 - 1 - 6 - bare.
    text = explain_text(four_presets({"default": 10.0, "no-grappler": 9.0, "no-folding": 4.0, "bare": bare}))
    if sign == "negative":
        assert "the interaction term is -2.00 s (-20%)" in text
        assert "saved less than the sum of switching each off alone, so the parts overlap" in text
    else:
        assert "the interaction term is 2.00 s (20%)" in text and "saved more than the sum" in text


def test_a_share_within_its_spread_is_given_as_a_range():
    # Grappler's part (0.1 s) is within the 0.4 s spread of its workers: no single percentage for it.
    text = explain_text(four_presets({"default": 10.0, "no-grappler": 9.9, "no-folding": 4.0, "bare": 3.9},
                                     spread=0.4))
    assert "Grappler 100.0 ms (-3% to 5%)" in text
    assert "constant folding 6.00 s (60%)" in text
    assert share_text(0.1, 10.0, 0.4) == "-3% to 5%" and share_text(1.0, 10.0, 0.4) == "10%"
