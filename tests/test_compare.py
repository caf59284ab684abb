"""compare end to end: real workers, JSON, report, exit codes.

The real runs start a worker process per measurement (compare_json is shared with test_api and test_evidence); the
command's refusals run tfgraphs.cli.main in this process, and once from a fresh interpreter.
"""

import json
import os

import pytest

import fakes
from conftest import run_cli, run_main
from tfgraphs import cli
from tfgraphs.fileio import read_doc
from tfgraphs.jobs import runner
from tfgraphs.records.results import load
from tfgraphs.records.schema import SCHEMA
from tfgraphs.spec import network

DATA = network.data_bytes(20, "float64")


def rows(doc):
    return {r["name"]: r for r in doc["variants"]}


def test_envelope(compare_json):
    _, doc, _ = compare_json
    assert doc["schema"] == SCHEMA and doc["tool"] == "tfgraphs" and doc["command"] == "compare"
    assert doc["config"] == {"batch": 20, "dtype": "float64", "runs": 3, "trials": 4, "full_trials": 1, "seed": 0,
                             "variants": ["numpy", "constant", "placeholder", "variable"], "later_every_trial": True}
    assert doc["tf_version"] and doc["python"]
    assert doc["machine"]["cpu_count"] >= 1 and "/physical_device:CPU:0" in doc["machine"]["devices"]


def test_a_feed_cost_in_a_family_names_the_workers_its_level_needs(compare_json):
    from tfgraphs.findings import remote
    from tfgraphs.records.judge import adjusted, fewest_a_side, judge

    # The real run's placeholder (fed per run) against variable (loaded once), judged in a family of two: at Holm's
    # 2.5% four workers a side cannot tell, and the sentence asks the judge how many can, not a fixed 4.
    rows = {r.variant: r for r in load(compare_json[1]).rows}
    fed, once = rows["placeholder"], rows["variable"]
    family = [judge(fed.later_medians_s, once.later_medians_s), judge(rows["numpy"].later_medians_s,
                                                                      once.later_medians_s)]
    with adjusted(family):
        (said,) = remote.sentences_of_rows([remote.feed_cost], [fed, once])
        (verdict,) = said.verdicts
    assert (verdict.n_a, verdict.n_b, verdict.family) == (4, 4, 2) and verdict.need
    assert said.endswith(f"cannot tell with n=4 and 4{verdict.need}; run with --trials {fewest_a_side([verdict])} or "
                         f"more to tell.")
    assert fewest_a_side([verdict]) == 5


def test_graph_sizes(compare_json):
    r = rows(compare_json[1])
    for name in ("numpy", "constant"):
        assert r[name]["graph_bytes"] >= DATA
        assert r[name]["const_bytes"] == DATA + 3 * 3 * 1 * 6 * 8   # X and W
    for name in ("placeholder", "variable"):
        assert r[name]["graph_bytes"] < 10_000
    assert r["placeholder"]["const_bytes"] == 0
    assert r["variable"]["const_bytes"] == 3 * 3 * 1 * 6 * 8


def test_phases_present_and_positive(compare_json):
    for name, r in rows(compare_json[1]).items():
        assert r["status"] == "ok" and r["error"] is None
        for key in ("build_s", "serialize_s", "session_s", "first_run_s", "peak_rss_bytes", "nodes"):
            assert r[key] > 0, (name, key)
        assert len(r["runs_s"]) == 12 and all(t > 0 for t in r["runs_s"])
        assert r["max_abs_err"] <= network.TOLERANCE["float64"]
        # Four workers (the default --trials), the first measuring every phase, the others the first run and the
        # later runs: three each.
        assert [len(t["runs_s"]) for t in r["trials"]] == [3, 3, 3, 3]
        assert [t["peak_rss_bytes"] is not None for t in r["trials"]] == [True, False, False, False]
        assert all(t["first_run_s"] > 0 and t["worker_start"] == "forked" for t in r["trials"])
        assert (r["init_s"] is not None) == (name == "variable")
        assert set(r["rss_bytes"]) >= {"start", "data", "build", "session", "first_run", "later_runs"}


def test_regime_and_activations_are_recorded(compare_json):
    r = rows(compare_json[1])
    # Batch 20's output is far under the classic folder's 10 MiB: the embedded variants' network is replaced.
    assert r["numpy"]["folded"] is True and r["constant"]["folded"] is True
    assert "folded" not in r["placeholder"] and "folded" not in r["variable"]
    assert {v["activation_bytes"] for v in r.values()} == {int(network.activation_bytes(20, "float64"))}


def test_report_rerenders_saved_json(compare_json, capfd):
    path, doc, proc = compare_json
    # The one `report` run from a fresh interpreter, as a user types it; the other reports run cli.main in process.
    again = run_cli("report", path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == proc.stdout
    # The time unit follows the numbers (ms here, s on a loaded machine).
    assert "\nPhases (" in again.stdout and "What this run shows:" in again.stdout
    every = run_main(capfd, "report", "--verbose", path)
    for title in ("Sizes", "Times (", "Why", "Memory: resident-memory growth per phase, in units of X's bytes", "What this run shows:"):
        assert title in every.stdout
    # The findings are the report's, said from the record: the record keeps the rest.
    assert json.loads(json.dumps(load(read_doc(path)).to_dict())) == {k: v for k, v in doc.items() if k != "findings"}


def test_report_formats(compare_json, capfd):
    proc = run_main(capfd, "report", compare_json[0], "--format", "github")
    assert proc.returncode == 0
    assert "| variant" in proc.stdout


def test_trials_rotate_and_aggregate(tmp_path):
    path = tmp_path / "t.json"
    proc = run_cli("compare", "--batch", 10, "--runs", 2, "--trials", 3, "--full-trials", 2, "--variants",
                   "placeholder,variable", "--json", path)
    assert proc.returncode == 0, proc.stderr
    progress = [line for line in proc.stderr.splitlines() if line.endswith("import tensorflow")]
    assert [p.split("] ")[1].split(":")[0] for p in progress] == [
        "placeholder trial 1/3", "variable trial 1/3", "variable trial 2/3", "placeholder trial 2/3",
        "placeholder trial 3/3", "variable trial 3/3"]
    for r in json.loads(path.read_text())["variants"]:
        # The third trial measured the first run and its later runs, not memory or sizes: both count.
        assert len(r["trials"]) == 3 and len(r["runs_s"]) == 6 and len(r["trials"][2]["runs_s"]) == 2
        assert [t["peak_rss_bytes"] is not None for t in r["trials"]] == [True, True, False]
        firsts = sorted(t["first_run_s"] for t in r["trials"])
        assert r["first_run_s"] == pytest.approx(firsts[1])


def _unfolded(doc):
    """The run as if the embedded variants' network had not been folded: their later runs then compute it, as at the
    default batch, where the output passes the classic folder's 10 MiB."""
    def unfold(r):
        if r["name"] not in ("numpy", "constant"):
            return r
        return {**r, "folded": False, "trials": [{**t, "folded": False} if "folded" in t else t for t in r["trials"]]}
    return load({**doc, "variants": [unfold(r) for r in doc["variants"]]})


def test_the_default_answer_judges_first_and_later_runs(compare_json):
    """Every worker of the default run times three later runs: embedded against fed, first runs and later runs are
    each judged on the embedded variants' eight workers pooled against the fed one's four."""
    from tfgraphs.findings.compare import answer_and_findings

    answer = [str(s) for s in answer_and_findings(_unfolded(compare_json[1]))[0]]
    later = next(s for s in answer if s.startswith("Later runs vs fed: "))
    first = next(s for s in answer if s.startswith("First run, embedded vs fed: "))
    assert "n=8 and 4" in later and "n=8 and 4" in first
    # The line the default run printed while later runs came from its first worker alone.
    assert "a rank test needs 4 a side" not in later and "--full-trials" not in later
    assert "Later runs vs fed: cannot tell with n=1 and 1" not in " ".join(answer)
    findings = " ".join(str(s) for s in answer_and_findings(_unfolded(compare_json[1]))[1])
    assert "n=4 and 4" in findings.split("Later runs")[1] and "--full-trials" not in findings


def test_a_document_with_later_runs_in_its_first_worker_names_full_trials(compare_json):
    """A document written when only the first of four workers timed later runs: one median a side, and the flag
    that gives more is --full-trials."""
    doc = compare_json[1]
    first_only = {**doc, "config": {k: v for k, v in doc["config"].items() if k != "later_every_trial"},
                  "variants": [{**r, "runs_s": r["trials"][0]["runs_s"],
                                "trials": [r["trials"][0], *({**t, "runs_s": []} for t in r["trials"][1:])]}
                               for r in doc["variants"]]}
    from tfgraphs.findings.compare import answer_and_findings

    later = next(str(s) for s in answer_and_findings(_unfolded(first_only))[0] if s.startswith("Later runs vs fed"))
    assert later.startswith("Later runs vs fed: cannot tell with n=2 and 1") and later.endswith("--full-trials 4.")


@pytest.mark.parametrize("args, message", [
    (["--batch", "0"], "--batch 0 must be at least 1"),
    (["--batch", "ten"], "'ten' is not a whole number"),
    (["--runs", "0"], "--runs 0 must be at least 1"),
    (["--dtype", "int8"], "--dtype 'int8' is not one of float64, float32, float16"),
    (["--variants", "constant,bogus"], "unknown variant bogus"),
    (["--format", "nope"], "unknown table format 'nope'"),
    (["--seed", "-1"], "--seed -1 must be 0 or more"),
    (["--batch", "400000", "--variants", "constant"], "past the 2 GiB single-tensor limit"),
    (["--batch", "100000000", "--variants", "placeholder"], "is estimated to need"),
])
def test_bad_input_exits_2(args, message, capfd):
    proc = run_main(capfd, "compare", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_bad_input_exits_2_from_a_fresh_process():
    proc = run_cli("compare", "--batch", "400000", "--variants", "constant")
    assert proc.returncode == 2
    assert "past the 2 GiB single-tensor limit" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def failing(*variants):
    """A fake worker's answer: a killed worker for these variants, a tiny result for the others."""
    return lambda task, env: fakes.failed_document() if task.variant in variants else fakes.seed_document()


def test_refused_variant_keeps_others(tmp_path, monkeypatch, capsys):
    fake = fakes.install(monkeypatch, failing())
    batch = network.max_embedded_batch("float64") + 1
    path = tmp_path / "r.json"
    code = cli.main(["compare", "--batch", str(batch), "--variants", "constant,placeholder", "--json", str(path),
                     "--trials", "1", "--force", "--quiet"])
    assert code == 2
    assert f"largest float64 batch it accepts is {batch - 1:,}" in capsys.readouterr().err
    r = rows(json.loads(path.read_text()))
    assert r["constant"]["status"] == "failed" and "2 GiB" in r["constant"]["error"]
    assert r["placeholder"]["status"] == "ok"
    assert [t.variant for t in fake.tasks] == ["placeholder"]


def test_failed_worker_becomes_failed_row(tmp_path, monkeypatch, capsys):
    fakes.install(monkeypatch, failing("variable"))
    path = tmp_path / "k.json"
    code = cli.main(["compare", "--batch", "10", "--variants", "placeholder,variable", "--trials", "1", "--json",
                     str(path), "--quiet"])
    assert code == 1
    r = rows(json.loads(path.read_text()))
    assert r["variable"] == {**r["variable"], "status": "failed", "error": "worker killed by signal SIGKILL"}
    assert r["placeholder"]["status"] == "ok"
    out = capsys.readouterr().out
    assert "FAILED variable: worker killed by signal SIGKILL" in out and "placeholder" in out


def test_real_worker_timeout_becomes_failed_row(tmp_path, capfd):
    path = tmp_path / "t.json"
    # No worker imports TensorFlow in a millisecond, so this one is always killed.
    proc = run_main(capfd, "compare", "--batch", 10, "--variants", "placeholder", "--trials", 1, "--timeout", "0.001",
                    "--json", path)
    assert proc.returncode == 1
    r = rows(json.loads(path.read_text()))["placeholder"]
    assert r["status"] == "failed" and r["error"] == "worker killed after the 0.001 s timeout"
    assert "FAILED placeholder: worker killed after the 0.001 s timeout" in proc.stdout


def test_runner_reports_signal():
    progress = runner.Progress(1, quiet=True)
    doc = runner.run_process(["-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], "x", progress)
    # Not a worker module, so started fresh; the document says so.
    assert doc == {"status": "failed", "error": "worker killed by signal SIGKILL (out of memory? try a smaller --batch)",
                   "worker_start": "fresh"}
    doc = runner.run_process(["-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"], "x", progress)
    assert doc == {"status": "failed", "error": "worker exited with status 3: boom", "worker_start": "fresh"}
    doc = runner.run_process(["-c", "print('not json')"], "x", progress)
    assert doc == {"status": "failed", "error": "worker printed no JSON result", "worker_start": "fresh"}
    doc = runner.run_process(["-c", "import time; time.sleep(60)"], "x", progress, timeout=0.2)
    assert doc == {"status": "failed", "error": "worker killed after the 0.2 s timeout", "worker_start": "fresh"}


def test_report_bad_files(tmp_path, capfd):
    missing = run_main(capfd, "report", tmp_path / "none.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_main(capfd, "report", bad)
    assert proc.returncode == 2 and "is not JSON" in proc.stderr
    for name, text, message in (
            ("other.json", '{"schema": 1}', "not a tfgraphs results file"),
            ("list.json", "[1, 2]", "not a tfgraphs results file"),
            ("partial.json", '{"tool": "tfgraphs", "schema": 1, "command": "compare", "config": {}, '
                             '"variants": [{"name": "x"}]}',
             "row 'x' has no build_s, session_s, first_run_s, runs_s, graph_bytes, rss_bytes"),
            ("future.json", '{"tool": "tfgraphs", "schema": 99, "config": {}, "variants": []}', "newer")):
        (tmp_path / name).write_text(text)
        proc = run_main(capfd, "report", tmp_path / name)
        assert proc.returncode == 2 and message in proc.stderr, name
        assert len(proc.stderr.splitlines()) == 1 and "Traceback" not in proc.stderr


def test_debug_after_the_subcommand(monkeypatch, capsys):
    fakes.install(monkeypatch, failing())
    assert cli.main(["compare", "--batch", "10", "--variants", "placeholder", "--quiet", "--debug"]) == 0
    assert "placeholder" in capsys.readouterr().out


def test_unwritable_outputs_refused_before_running(tmp_path, capfd):
    plain = tmp_path / "plain.txt"
    plain.write_text("a file, so nothing can be created under it, whoever runs the test")
    for args, message in ((["--json", tmp_path], "is a directory; give a file name"),
                          (["--json", plain / "out.json"], f"cannot write {plain / 'out.json'}: {plain}: Not a directory"),
                          (["--plot", plain / "out.png"], "Not a directory")):
        proc = run_main(capfd, "compare", "--batch", 10, *args)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert len(proc.stderr.splitlines()) == 1 and proc.stdout == ""


def test_json_file_mode_follows_umask(compare_json):
    path = compare_json[0]
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(path).st_mode & 0o777 == 0o666 & ~umask
