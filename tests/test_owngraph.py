"""explain --graph on graphs the tests build: feeds, fetches, the report, traces, and every refusal.

One run of the command in a process of its own, with its real workers, is shared by the tests that read it; the
others run tfgraphs.cli.main in this process, their workers' measure() in it too (fakes.in_process).
"""

import json

import numpy as np
import pytest

import fakes
import owngraphs
from conftest import run_main
from tfgraphs.cli import main
from tfgraphs.errors import UsageError
from tfgraphs.graphdef.files import resolve
from tfgraphs.spec.owngraph import Feed, decode_feeds, encode_feeds, feed_data


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    root = tmp_path_factory.mktemp("graphs")
    return {"cnn": owngraphs.frozen_cnn(root / "cnn.pb"), "lookup": owngraphs.lookup(root / "lookup.pb"),
            "mixed": owngraphs.mixed(root / "mixed.pb"), "saved": owngraphs.saved_model(root / "saved"),
            "root": root}


def test_feeds_and_fetches_are_resolved(graphs):
    cnn = resolve(str(graphs["cnn"]), dims={"images": (3, 8, 8, 1)})
    assert cnn.inputs == (("images", Feed("images:0", "float32", (3, 8, 8, 1))),)
    assert cnn.outputs == (("logits", "logits:0"),) and cnn.tag is None and cnn.format == "GraphDef (binary)"
    # The NoOp nothing consumes is left out of the default fetches.
    mixed = resolve(str(graphs["mixed"]))
    assert mixed.feeds == (Feed("k:0", "int64", (2,)), Feed("x:0", "float32", (2, 3)))
    assert mixed.outputs == (("y", "y:0"),)
    saved = resolve(str(graphs["saved"]), dims={"in": (4, 128)})
    assert (saved.tag, saved.signature, saved.outputs) == ("serve", "serving_default", (("out", "y:0"),))
    assert saved.feeds == (Feed("features:0", "float32", (4, 128)),)
    assert resolve(str(graphs["lookup"]), dims={"ids": (5,)}, fetches=("scores",)).outputs == (("scores", "scores:0"),)


def test_feeds_round_trip_and_data_is_seeded():
    feeds = (Feed("k:0", "int64", (200,)), Feed("x:0", "float32", (2, 3)), Feed("m:0", "bool", ()))
    assert decode_feeds(encode_feeds(feeds)) == feeds
    a, b = feed_data(feeds, seed=1, int_high=3), feed_data(feeds, seed=1, int_high=3)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert set(np.unique(a["k:0"])) == {0, 1, 2} and a["k:0"].dtype == np.int64
    assert a["x:0"].dtype == np.float32 and ((0 <= a["x:0"]) & (a["x:0"] < 1)).all()


def custom_op_graph(path):
    from tensorflow.core.framework import graph_pb2

    g = graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    g.node.add(name="y", op="ZzMadeUpOp", input=["x"])
    path.write_bytes(g.SerializeToString())
    return path


def constants_only(path):
    from tfgraphs.tfimport import import_tensorflow

    tf = import_tensorflow()
    graph = tf.Graph()
    with graph.as_default():
        tf.add(tf.constant(1.0), 2.0, name="sum")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


@pytest.mark.parametrize("case, said", [
    (lambda g: ["--graph", g["root"] / "garbage.pb"], "is not a GraphDef"),
    (lambda g: ["--graph", g["root"]], "is a directory without a graph"),
    (lambda g: ["--graph", g["constants"]], "has no placeholders to feed and no --fetch"),
    (lambda g: ["--graph", g["mixed"], "--feed", "z=2"], "unknown feed 'z'; the inputs are k, x"),
    (lambda g: ["--graph", g["mixed"], "--fetch", "nope"], "unknown fetch 'nope'"),
    (lambda g: ["--graph", g["cnn"]], "input 'images' has shape [?, 8, 8, 1]; give every dimension with --feed"),
    (lambda g: ["--graph", g["cnn"], "--feed", "images=2,8,8"], "does not fit its shape [?, 8, 8, 1]"),
    (lambda g: ["--graph", g["custom"]], "uses op 'ZzMadeUpOp', which TensorFlow"),
    (lambda g: ["--graph", g["saved"], "--tag", "train"], "has no meta graph tagged 'train'"),
    (lambda g: ["--graph", g["saved"], "--signature", "other"], "has no signature 'other'"),
])
def test_bad_input_is_one_line_and_exit_2(graphs, monkeypatch, capsys, case, said):
    (graphs["root"] / "garbage.pb").write_bytes(b"\x00\xffnot a graph")
    graphs["constants"] = constants_only(graphs["root"] / "constants.pb")
    graphs["custom"] = custom_op_graph(graphs["root"] / "custom.pb")
    fake = fakes.install(monkeypatch, fakes.in_process)
    assert main(["explain", *map(str, case(graphs)), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
    assert fake.calls == []   # refused before any worker started


def test_a_known_wrong_shape_is_refused_by_the_resolver(graphs):
    with pytest.raises(UsageError, match="does not fit"):
        resolve(str(graphs["mixed"]), dims={"x": (3, 3)})


@pytest.fixture(scope="module")
def explained(graphs):
    out = graphs["root"] / "cnn-explain"
    proc = run_main(None, "explain", "--graph", graphs["cnn"], "--feed", "images=4,8,8,1", "--runs", 2, "--trials", 1,
                   "--presets", "default", "--trace", out / "traces", "--tensorboard", out / "tb",
                   "--json", out / "e.json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out, json.loads((out / "e.json").read_text()), proc


def test_explain_graph_report(explained):
    out, doc, proc = explained
    assert doc["command"] == "explain" and [r["variant"] for r in doc["runs"]] == ["cnn.pb"]
    row = doc["runs"][0]
    assert row["status"] == "ok" and row["preset"] == "default" and len(row["runs_s"]) == 2
    assert {"MatMul", "Conv2D"} <= {op["op"] for op in row["top_ops"]}
    assert doc["config"]["inputs"] == [{"key": "images", "tensor": "images:0", "dtype": "float32",
                                        "shape": [4, 8, 8, 1]}]
    assert doc["attribution"][0]["variant"] == "cnn.pb"
    assert sorted(p.name for p in (out / "traces").iterdir()) == ["cnn.pb.default.first-run.trace.json",
                                                                  "cnn.pb.default.second-run.trace.json"]
    assert (out / "tb" / "cnn.pb").is_dir()
    assert "explain --graph" in proc.stdout and "cnn.pb: the traced first run spent longest in" in proc.stdout


@pytest.mark.parametrize("name, flags", [
    ("lookup", ["--feed", "ids=6"]),
    ("mixed", []),
    ("saved", ["--feed", "in=3,128"]),
])
def test_explain_graph_runs_each_graph(graphs, monkeypatch, tmp_path, name, flags):
    fake = fakes.install(monkeypatch, fakes.in_process)
    assert main(["explain", "--graph", str(graphs[name]), *flags, "--runs", "2", "--trials", "1", "--presets", "bare",
                 "--json", str(tmp_path / "e.json"), "--quiet"]) == 0
    doc = json.loads((tmp_path / "e.json").read_text())
    assert [(r["variant"], r["preset"], r["status"]) for r in doc["runs"]] == [(graphs[name].name, "bare", "ok")]
    assert [(t.mode, t.preset) for t in fake.tasks] == [("timed", "bare"), ("traced", "bare")]
    assert doc["runs"][0]["top_ops"] and len(doc["runs"][0]["runs_s"]) == 2


def test_a_graph_failing_at_run_time_is_a_failed_row(graphs, monkeypatch, capsys):
    fakes.install(monkeypatch, fakes.in_process)
    # ids up to 10**6 index past the table's 8,192 rows: TensorFlow refuses the gather.
    assert main(["explain", "--graph", str(graphs["lookup"]), "--feed", "ids=50", "--int-high", "1000000",
                 "--runs", "2", "--trials", "1", "--presets", "default", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "FAILED lookup.pb: InvalidArgumentError" in out and "not in [0, 8192)" in out


def test_inspect_suggests_unembed_only_for_large_constants(graphs):
    from tfgraphs.findings.files import answer_and_findings
    from tfgraphs.jobs.owngraph import INSPECT as inspect

    lookup = answer_and_findings(inspect.run(inspect.Config(str(graphs["lookup"]))))[1]
    assert any(f"`tfgraphs unembed {graphs['lookup']} -o OUT`" in s for s in lookup)
    assert not any("unembed" in s for s in answer_and_findings(inspect.run(inspect.Config(str(graphs["cnn"]))))[1])


def test_explain_graph_takes_the_built_in_networks_defaults(tmp_path, capfd):
    proc = run_main(capfd, "explain", "--graph", tmp_path / "none.pb", "--batch", "6000", "--dtype", "float64")
    assert proc.returncode == 2 and "none.pb" in proc.stderr and "built-in network" not in proc.stderr
    proc = run_main(capfd, "explain", "--graph", tmp_path / "none.pb", "--batch", "60")
    assert proc.returncode == 2 and proc.stderr.strip().endswith("--batch sets the built-in network; it does not "
                                                                 "apply with --graph")
