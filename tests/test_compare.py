"""compare end to end: real workers, JSON, report, exit codes."""

import json
import signal
import sys

import pytest

from conftest import run_cli
from tfgraphs import limits, network, results, runner

DATA = network.data_bytes(20, "float64")


def rows(doc):
    return {r["name"]: r for r in doc["variants"]}


def test_envelope(compare_json):
    _, doc, _ = compare_json
    assert doc["schema"] == 1 and doc["tool"] == "tfgraphs" and doc["command"] == "compare"
    assert doc["config"] == {"batch": 20, "dtype": "float64", "runs": 3, "trials": 1, "seed": 0,
                             "variants": ["numpy", "constant", "placeholder", "variable"]}
    assert doc["tf_version"] and doc["python"]
    assert doc["machine"]["cpu_count"] >= 1 and "/physical_device:CPU:0" in doc["machine"]["devices"]


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
        assert len(r["runs_s"]) == 3 and all(t > 0 for t in r["runs_s"])
        assert r["max_abs_err"] <= network.TOLERANCE["float64"]
        assert len(r["trials"]) == 1
        assert (r["init_s"] is not None) == (name == "variable")
        assert set(r["rss_bytes"]) >= {"start", "data", "build", "session", "first_run", "later_runs"}


def test_report_rerenders_saved_json(compare_json):
    path, doc, proc = compare_json
    again = run_cli("report", path)
    assert again.returncode == 0, again.stderr
    assert again.stdout == proc.stdout
    for title in ("Phases", "Why", "Memory: copies of X added per phase", "What this run shows:"):
        assert title in again.stdout
    assert json.loads(json.dumps(results.read_json(path).to_dict())) == doc


def test_report_formats(compare_json):
    proc = run_cli("report", compare_json[0], "--format", "github")
    assert proc.returncode == 0
    assert "| variant" in proc.stdout


def test_trials_rotate_and_aggregate(tmp_path):
    path = tmp_path / "t.json"
    proc = run_cli("compare", "--batch", 10, "--runs", 2, "--trials", 2, "--variants", "placeholder,variable",
                   "--json", path)
    assert proc.returncode == 0, proc.stderr
    progress = [line for line in proc.stderr.splitlines() if line.endswith("import tensorflow")]
    assert [p.split("] ")[1].split(":")[0] for p in progress] == [
        "placeholder trial 1/2", "variable trial 1/2", "variable trial 2/2", "placeholder trial 2/2"]
    for r in json.loads(path.read_text())["variants"]:
        assert len(r["trials"]) == 2 and len(r["runs_s"]) == 4
        firsts = sorted(t["first_run_s"] for t in r["trials"])
        assert r["first_run_s"] == pytest.approx(sum(firsts) / 2)


@pytest.mark.parametrize("args, message", [
    (["--batch", "0"], "'0' must be at least 1"),
    (["--batch", "ten"], "'ten' is not a whole number"),
    (["--runs", "0"], "'0' must be at least 1"),
    (["--dtype", "int8"], "invalid choice: 'int8'"),
    (["--variants", "constant,bogus"], "unknown variant bogus"),
    (["--format", "nope"], "unknown table format 'nope'"),
    (["--batch", "400000", "--variants", "constant"], "past the 2 GiB GraphDef limit"),
    (["--batch", "100000000", "--variants", "placeholder"], "is estimated to need"),
])
def test_bad_input_exits_2(args, message):
    proc = run_cli("compare", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_refused_variant_keeps_others(tmp_path):
    batch = limits.max_embedded_batch("float64") + 1
    path = tmp_path / "r.json"
    # --runs 1 and --timeout keep this cheap: placeholder is killed during import, which is also a failed row.
    proc = run_cli("compare", "--batch", batch, "--variants", "constant,placeholder", "--timeout", "0.5",
                   "--json", path, "--force")
    assert proc.returncode == 2
    assert f"largest float64 batch that fits is {batch - 1:,}" in proc.stderr
    r = rows(json.loads(path.read_text()))
    assert r["constant"]["status"] == "failed" and "2 GiB" in r["constant"]["error"]
    assert r["placeholder"]["status"] == "failed" and "timeout" in r["placeholder"]["error"]


def test_killed_worker_becomes_failed_row(tmp_path):
    path = tmp_path / "k.json"
    proc = run_cli("compare", "--batch", 10, "--variants", "placeholder", "--timeout", "0.5", "--json", path)
    assert proc.returncode == 1
    r = rows(json.loads(path.read_text()))["placeholder"]
    assert r["status"] == "failed" and r["error"] == "worker killed after the 0.5 s timeout"
    assert "FAILED placeholder: worker killed after the 0.5 s timeout" in proc.stdout


def test_runner_reports_signal():
    progress = runner.Progress(1, quiet=True)
    doc = runner.run_worker(["-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"], "x", progress)
    assert doc == {"status": "failed", "error": "worker killed by signal SIGKILL (out of memory? try a smaller --batch)"}
    doc = runner.run_worker(["-c", "import sys; print('boom', file=sys.stderr); sys.exit(3)"], "x", progress)
    assert doc == {"status": "failed", "error": "worker exited with status 3: boom"}
    doc = runner.run_worker(["-c", "print('not json')"], "x", progress)
    assert doc == {"status": "failed", "error": "worker exited with status 0"}


def test_report_bad_files(tmp_path):
    missing = run_cli("report", tmp_path / "none.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = run_cli("report", bad)
    assert proc.returncode == 2 and "not a tfgraphs results file" in proc.stderr
    other = tmp_path / "other.json"
    other.write_text('{"schema": 1}')
    proc = run_cli("report", other)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
