"""unembed on graphs the tests build: what moves, the SavedModel plain TensorFlow loads, --check, and refusals.

One run of the command in a process of its own, with its real workers, is shared by the tests that read it, and its
report is rendered again by `tfgraphs report` in another; the others run tfgraphs.cli.main in this process.
"""

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fakes
import owngraphs
from conftest import run_main, words
from tfgraphs.cli import main
from tfgraphs.spec.options import byte_size
from tfgraphs.errors import UsageError
from tfgraphs.jobs.owngraph import compare_outputs
from tfgraphs.tfimport import import_tensorflow
from tfgraphs.worker import unembed as worker

SIDE = {"graph_bytes", "const_bytes", "largest_const_bytes", "session_s", "load_s", "first_run_s", "runs_s",
        "peak_rss_bytes"}


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    root = tmp_path_factory.mktemp("graphs")
    return {"cnn": owngraphs.frozen_cnn(root / "cnn.pb"), "lookup": owngraphs.lookup(root / "lookup.pb"),
            "mixed": owngraphs.mixed(root / "mixed.pb"), "saved": owngraphs.saved_model(root / "saved"),
            "function": owngraphs.with_function(root / "function.pb"), "root": root}


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def unembedded(graphs):
    out, before = graphs["root"] / "lookup-out", digest(graphs["lookup"])
    proc = run_main(None, "unembed", graphs["lookup"], "-o", out, "--check", "--feed", "ids=7", "--runs", 2,
                   "--json", graphs["root"] / "u.json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert digest(graphs["lookup"]) == before   # the input is never modified
    return out, json.loads((graphs["root"] / "u.json").read_text()), proc


def test_the_table_moves_and_the_graph_shrinks(unembedded):
    _, doc, proc = unembedded
    assert {"command", "before", "after", "moved", "max_abs_err"} <= set(doc) and doc["command"] == "unembed"
    assert (doc["schema"], doc["tool"], doc["path"]) == (2, "tfgraphs", str(graphs_root(doc) / "lookup.pb"))
    assert set(doc["before"]) == set(doc["after"]) == SIDE
    assert doc["moved"] == [{"name": "table", "bytes": owngraphs.TABLE_ROWS * owngraphs.TABLE_WIDTH * 4,
                             "dtype": "float32", "shape": [owngraphs.TABLE_ROWS, owngraphs.TABLE_WIDTH]}]
    assert doc["after"]["graph_bytes"] < 0.01 * doc["before"]["graph_bytes"]
    assert doc["before"]["largest_const_bytes"] == 2 * 2**20 and doc["after"]["largest_const_bytes"] < 100
    assert doc["max_abs_err"] == 0.0 and len(doc["after"]["runs_s"]) == 2
    assert "The rewritten graph's outputs equal the original's" in proc.stdout
    assert "The rewrite took" in proc.stdout and "above the" in proc.stdout and "-byte GraphDef." in proc.stdout


def graphs_root(doc):
    return Path(doc["out"]).parent


def test_report_renders_the_document_as_the_command_did(unembedded, capfd):
    _, doc, proc = unembedded
    report = run_main(capfd, "report", graphs_root(doc) / "u.json")
    assert report.returncode == 0, report.stderr
    assert report.stdout == proc.stdout


def test_report_renders_a_document_of_the_first_five_keys(unembedded, tmp_path, capfd):
    _, doc, proc = unembedded
    first = {k: doc[k] for k in ("command", "before", "after", "moved", "max_abs_err")}
    (tmp_path / "first.json").write_text(json.dumps(first))
    report = run_main(capfd, "report", tmp_path / "first.json")
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("unembed: a document without the path, OUT and --min-bytes it ran with\n\n")
    # The tables are the command's own; of the sentences, those the five keys hold numbers for.
    tables = [t.stdout.split("Moved into variables")[1].split("What this run shows:")[0] for t in (proc, report)]
    assert tables[0] == tables[1]
    sizes = f"the GraphDef went from {doc['before']['graph_bytes']:,} to {doc['after']['graph_bytes']:,} bytes"
    assert sizes in words(report.stdout) and "The rewrite took" not in report.stdout
    del first["moved"]
    (tmp_path / "broken.json").write_text(json.dumps(first))
    broken = run_main(capfd, "report", tmp_path / "broken.json")
    assert (broken.returncode, broken.stdout) == (2, "")
    assert broken.stderr == f"tfgraphs: {tmp_path / 'broken.json'}: not a complete unembed result (no moved)\n"


def test_plain_tensorflow_loads_the_result(unembedded):
    out = unembedded[0]
    tf = import_tensorflow()
    ids = np.array([0, 5, 8191, 77], np.int32)
    with tf.compat.v1.Session(graph=tf.Graph()) as sess:
        meta = tf.compat.v1.saved_model.loader.load(sess, ["serve"], str(out))
        sig = meta.signature_def["serving_default"]
        got = sess.run(sig.outputs["scores"].name, {sig.inputs["ids"].name: ids})
        variables = {v.op.name: v for v in tf.compat.v1.global_variables()}
        assert list(variables) == ["table/variable"] and tf.compat.v1.trainable_variables() == []
    np.testing.assert_allclose(got, owngraphs.table()[ids].sum(axis=1), rtol=1e-6)


@pytest.mark.parametrize("name, flags, moved, left", [
    ("cnn", ["--feed", "images=3,8,8,1", "--min-bytes", "1KiB"], ["dense_w"], []),
    # Every Const moves, down to the scalars and the slice bounds.
    ("mixed", ["--min-bytes", "1"], ["add/y", "strided_slice/stack", "strided_slice/stack_1",
                                     "strided_slice/stack_2", "y/y"], []),
    ("saved", ["--feed", "in=2,128", "--min-bytes", "32KiB"], ["bias"], []),
    ("function", ["--min-bytes", "1KiB"], [], ["inner"]),
])
def test_each_graph_through_unembed_check(graphs, monkeypatch, tmp_path, capsys, name, flags, moved, left):
    fakes.install(monkeypatch, fakes.in_process)
    code = main(["unembed", str(graphs[name]), "-o", str(tmp_path / "out"), "--check", "--runs", "2", *flags,
                 "--json", str(tmp_path / "u.json"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    doc = json.loads((tmp_path / "u.json").read_text())
    assert [m["name"] for m in doc["moved"]] == moved
    assert doc["max_abs_err"] == 0.0
    for n in left:
        assert "Inside function bodies" in out and n in out and "stays a Const" in out


def test_a_wrong_rewrite_fails_the_check(graphs, monkeypatch, tmp_path, capsys):
    def answer(task, env):
        doc = fakes.in_process(task, env)
        if getattr(task, "outputs_path", None) and task.path.endswith("out"):
            with np.load(task.outputs_path) as saved:
                arrays = [saved[k] + 0.5 for k in saved.files]   # a rewrite that changed the values
            np.savez(task.outputs_path, *arrays)
        return doc

    fakes.install(monkeypatch, answer)
    code = main(["unembed", str(graphs["lookup"]), "-o", str(tmp_path / "out"), "--check", "--feed", "ids=3",
                 "--runs", "2", "--quiet"])
    assert code == 1
    assert "The outputs DIFFER: the largest absolute difference is 0.5" in capsys.readouterr().out


def test_compare_names_the_largest_difference(tmp_path):
    np.savez(tmp_path / "a.npz", np.ones(3, np.float32), np.arange(4))
    np.savez(tmp_path / "b.npz", np.ones(3, np.float32) + 1e-7, np.arange(4))
    worst, tol, within = compare_outputs(tmp_path / "a.npz", tmp_path / "b.npz")
    assert within and worst == pytest.approx(1.19e-7, rel=0.01) and tol == pytest.approx(1e-6)
    np.savez(tmp_path / "c.npz", np.ones(3, np.float32), np.arange(4) + 1)
    assert compare_outputs(tmp_path / "a.npz", tmp_path / "c.npz") == (1.0, 0.0, False)
    np.savez(tmp_path / "d.npz", np.ones(2, np.float32), np.arange(4))
    assert compare_outputs(tmp_path / "a.npz", tmp_path / "d.npz")[2] is False   # a changed shape never matches


def test_out_is_refused_when_not_empty_and_replaced_with_replace(graphs, monkeypatch, tmp_path, capsys):
    fake = fakes.install(monkeypatch, fakes.in_process)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["unembed", str(graphs["mixed"]), "-o", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "exists and is not empty; choose a new folder, or --replace" in err and err.count("\n") == 1
    assert fake.calls == [] and (out / "keep.txt").exists()
    assert main(["unembed", str(graphs["mixed"]), "-o", str(out), "--replace", "--quiet"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["saved_model.pb", "variables"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tfgraphs-")]   # no temporary folder left


@pytest.mark.parametrize("out, said", [
    (lambda g: g["saved"] / "inner", "is inside the input"),
    (lambda g: g["lookup"], "is the input"),
])
def test_out_never_touches_the_input(graphs, monkeypatch, capsys, out, said):
    fakes.install(monkeypatch, fakes.in_process)
    path = graphs["saved"] if "inner" in str(out(graphs)) else graphs["lookup"]
    assert main(["unembed", str(path), "-o", str(out(graphs)), "--replace", "--quiet"]) == 2
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("text, size", [("1048576", 2**20), ("512KiB", 512 * 1024), ("2MB", 2_000_000),
                                        ("1.5 MiB", 3 * 2**19), ("3b", 3), ("1gib", 2**30)])
def test_sizes_take_units(text, size):
    assert byte_size("min_bytes", text) == size


@pytest.mark.parametrize("text", ["", "MiB", "2 XB", "-1", "0", "0.1"])
def test_bad_sizes_are_refused(text):
    with pytest.raises(UsageError, match="--min-bytes"):
        byte_size("min_bytes", text)


def test_without_check_open_dimensions_need_no_feed(graphs, monkeypatch, tmp_path, capsys):
    fake = fakes.install(monkeypatch, fakes.in_process)
    assert main(["unembed", str(graphs["lookup"]), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    assert [type(t).__name__ for t in fake.tasks] == ["UnembedTask"]
    assert "--check runs both graphs" in " ".join(capsys.readouterr().out.split())


# Lengths on both sides of each varint boundary a length prefix crosses (1, 2, 3 and 4 bytes).
EDGES = [n + d for n in (2**7, 2**14, 2**21) for d in (-20, -9, -8, -7, -2, -1, 0, 1, 2, 7)]


@settings(max_examples=30, deadline=None)
@given(lengths=st.lists(st.one_of(st.integers(2, 400), st.sampled_from(EDGES)), min_size=1, max_size=3),
       name=st.sampled_from(["t", "a/much/longer/scope/name" * 3]))
def test_the_graph_is_sized_without_serializing_it(lengths, name):
    tf = import_tensorflow()
    graph_def = tf.compat.v1.GraphDef()
    for i, n in enumerate(lengths):
        graph_def.node.add(name=f"{name}{i}", op="Const").attr["value"].tensor.CopyFrom(
            tf.make_tensor_proto(np.arange(n, dtype=np.int8)))
        graph_def.node[-1].attr["dtype"].type = tf.int8.as_datatype_enum
    whole = graph_def.ByteSize()
    moved, _ = worker.choose(graph_def, 1)
    values, taken = worker.take_values(graph_def, moved)
    assert [(values[f"{name}{i}"].dtype, values[f"{name}{i}"].tobytes()) for i in range(len(lengths))] == [
        (np.int8, np.arange(n, dtype=np.int8).tobytes()) for n in lengths]
    assert worker.sizes(graph_def, taken)["graph_bytes"] == whole
    # What the cleared graph alone would say: short by every byte the contents took.
    assert whole - worker.sizes(graph_def)["graph_bytes"] == taken > sum(lengths)


def _timed(before_runs, after_runs, first=(0.1376, 0.0215)):
    """The fixture's unembed run with its later runs (and first runs) set."""
    from dataclasses import replace

    from tfgraphs.records.results import load

    u = load(json.loads((Path(__file__).parent / "fixtures" / "unembed.json").read_text()))
    return replace(u, before={**u.before, "runs_s": list(before_runs), "first_run_s": first[0]},
                   after={**u.after, "runs_s": list(after_runs), "first_run_s": first[1]})


def test_later_runs_are_judged_and_one_first_run_a_side_cannot_be():
    from tfgraphs.findings.files import answer_and_findings

    # The fixture's own numbers: 3 later runs a side, one first run a side. The range rule said "no measurable
    # difference (medians differ by 0.38 ms, within a spread of 5.74 ms)"; three a side cannot decide either way.
    said = [s for s in answer_and_findings(_timed((0.00534, 0.000806, 0.000603), (0.00591, 0.000426, 0.000172)))[1]
            if s.startswith(("First run", "Later runs"))]
    assert said == [
        "First run, after against before: 21.5 ms against 137.6 ms, cannot tell with n=1 and 1 (a rank test needs 4 "
        "a side) (x0.16, no 95% CI at this n; p=1): one first run a side, one per fresh worker (--runs repeats only "
        "the later runs).",
        "Later runs, after against before: a median 0.4 ms against 0.8 ms, cannot tell with n=3 and 3 (a rank test "
        "needs 4 a side) (x0.53, no 95% CI at this n; p=0.7)."]
    assert [v.outcome for s in said for v in s.verdicts] == ["cannot tell", "cannot tell"]
    # Eight a side, every run after faster: it differs, one outlier notwithstanding (the range rule's blind spot).
    before = [0.0008 + i * 1e-5 for i in range(8)]
    after = [0.0004 + i * 1e-5 for i in range(7)] + [0.006]
    said = " ".join(answer_and_findings(_timed(before, after))[1])
    assert "Later runs, after against before: a median 0.4 ms against 0.8 ms, differs (x0.52, 95% CI x" in said
    assert "n=8 and 8, p=0.0" in said
    # The same runs on both sides: no difference beyond 25%, never "differs".
    said = " ".join(answer_and_findings(_timed(before, [t * 1.001 for t in before]))[1])
    assert "Later runs, after against before: a median 0.8 ms against 0.8 ms, no difference beyond 25%" in said
    assert "differs" not in said.split("Later runs")[1].split(".")[0]
