"""What the text, CSV and JSON outputs promise: 100 columns, --wide, CSV rows, metadata, --version, report A B.

`report A B` runs tfgraphs.cli.main in this process (test_compare runs `report` once from a fresh interpreter);
--version runs in an interpreter of its own, where TensorFlow is made unimportable.
"""

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

import fakes
from conftest import run_main, words
from tfgraphs import __version__, cli
from tfgraphs.records.results import load
from tfgraphs.api.commands import render
from tfgraphs.render.page import Table, output_width, render_table
from tfgraphs.units import sig3

FIXTURES = Path(__file__).parent / "fixtures"
DOCS = sorted(p.stem for p in FIXTURES.glob("*.json"))


def saved(name):
    return load(json.loads((FIXTURES / f"{name}.json").read_text()))


@pytest.mark.parametrize("name", DOCS)
@pytest.mark.parametrize("width", [100, 80])
def test_every_line_fits(name, width):
    text = render(saved(name), width=width)
    assert max(len(line) for line in text.splitlines()) <= width


@pytest.mark.parametrize("name", DOCS)
def test_wide_keeps_one_table_per_section(name):
    wide, narrow = render(saved(name), width=None), render(saved(name))
    assert max(len(line) for line in wide.splitlines()) > 100
    # Folding moves the sentences' words to new lines but keeps every word, in order.
    assert wide.split("shows:")[1].split() == narrow.split("shows:")[1].split()


def test_a_table_too_wide_is_split_with_its_keys():
    table = Table(("name", *(f"column {i}" for i in range(12))), (("a", *map(str, range(12))),))
    text = render_table(table, "simple", 60)
    parts = text.split("\n\n")
    assert len(parts) > 1 and all(p.startswith("name") for p in parts)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert [h for p in parts for h in p.splitlines()[0].split("  ") if h.strip().startswith("column")] == \
        [f"column {i}" for i in range(12)]


@pytest.mark.parametrize("value, text", [(2479.98, "2480"), (146.2, "146"), (14.62, "14.6"), (1.462, "1.46"),
                                         (0.4462, "0.446"), (0.04462, "0.0446"), (9.996, "10.0"), (99.96, "100"),
                                         (0.0, "0"), (-3.14159, "-3.14"), (None, None)])
def test_three_significant_digits(value, text):
    assert sig3(value) == text


def test_width_follows_the_terminal(monkeypatch):
    class Tty:
        def isatty(self):
            return True
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: __import__("os").terminal_size((132, 40)))
    assert output_width(Tty()) == 132
    monkeypatch.setattr("shutil.get_terminal_size", lambda fallback: __import__("os").terminal_size((60, 40)))
    assert output_width(Tty()) == 80
    assert output_width(open(__file__)) == 100


def test_compare_writes_csv_and_metadata(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    fakes.install(monkeypatch, lambda task, env: fakes.seed_document(runs_s=[0.1, 0.3, 0.2]))
    out, table = tmp_path / "r.json", tmp_path / "r.csv"
    code = cli.main(["compare", "--batch", "10", "--variants", "placeholder,variable", "--trials", "2",
                     "--json", str(out), "--csv", str(table), "--quiet"])
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["tfgraphs_version"] == __version__ and doc["env"] == {"OMP_NUM_THREADS": "2"}
    assert doc["created"].endswith("+00:00") and doc["created"][:4].isdigit()
    lines = list(csv.DictReader(table.open()))
    assert [(r["variant"], r["trial"]) for r in lines] == [("placeholder", "1"), ("placeholder", "2"),
                                                           ("variable", "1"), ("variable", "2")]
    assert lines[0]["later_median_s"] == "0.2" and lines[0]["later_n"] == "3" and lines[0]["graph_bytes"] == "400"
    assert lines[0]["first_run_s"] == "0.2" and lines[0]["batch"] == "10"


def test_unwritable_csv_exits_2_before_any_worker(tmp_path, monkeypatch, capsys):
    fake = fakes.install(monkeypatch, lambda task, env: fakes.seed_document())
    assert cli.main(["compare", "--batch", "10", "--csv", str(tmp_path)]) == 2
    assert fake.calls == [] and "is a directory" in capsys.readouterr().err


def test_version_needs_no_tensorflow():
    code = "import sys; sys.modules['tensorflow'] = None; from tfgraphs.cli import main; main(['--version'])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.startswith(f"tfgraphs {__version__} (TensorFlow ") and "Python " in proc.stdout


def test_old_documents_still_load():
    """A document from tfgraphs 0.1, before the metadata keys, loads and renders."""
    doc = json.loads((FIXTURES / "0.1" / "compare.json").read_text())
    assert "created" not in doc and "tfgraphs_version" not in doc
    report = load(doc)
    assert report.created is None and report.env is None and "created" not in report.to_dict()
    assert "What this run shows:" in render(report)


def _saved_compare(tmp_path, name, first_runs):
    """A compare document with one variant whose trials' first runs are first_runs."""
    trials = [fakes.seed_document(first_run_s=f) for f in first_runs]
    from fakes import results
    from tfgraphs.records.results import Measurement, Row
    row = Row.from_trials("placeholder", [Measurement.from_dict(t) for t in trials])
    path = tmp_path / name
    path.write_text(json.dumps(results("compare", {"batch": 10, "dtype": "float64", "runs": 2, "trials": len(trials),
                                                  "seed": 0}, (row,)).to_dict()))
    return path


def test_report_a_b_judges_each_phase_by_the_rank_test_on_the_trials(tmp_path, capfd):
    # Each trial is a fresh worker, and the two documents' workers are independent: B's trials against A's.
    a = _saved_compare(tmp_path, "a.json", [0.20, 0.21, 0.22, 0.23])
    slower = _saved_compare(tmp_path, "b.json", [0.40, 0.41, 0.42, 0.43])
    close = _saved_compare(tmp_path, "c.json", [0.205, 0.215, 0.225, 0.235])
    proc = run_main(capfd, "report", a, slower)
    assert proc.returncode == 0, proc.stderr
    text = words(proc.stdout)
    assert ("B differs from A and is larger in: placeholder first run (x1.93, 95% CI x1.73 to x2.15; n=4 and 4, "
            "p=0.029).") in text
    assert "B larger: x1.93, 95% CI x1.73 to x2.15; n=4 and 4, p=0.029" in text
    proc = run_main(capfd, "report", a, close)
    text = words(proc.stdout)
    assert "B differs" not in text and "B larger:" not in text
    assert "No difference beyond 25% between A and B in: placeholder build (x1.00, 95% CI x1.00 to x1.00; n=4" in text
    assert "placeholder first run (x1.02, 95% CI x0.89 to x1.18; n=4 and 4, p=0.69)" in text
    # Three trials a side, apart: no rank test can tell at n=3, so neither "differs" nor "no difference" is said.
    three = _saved_compare(tmp_path, "three.json", [0.20, 0.21, 0.22])
    apart = _saved_compare(tmp_path, "apart.json", [0.40, 0.41, 0.42])
    proc = run_main(capfd, "report", three, apart)
    text = words(proc.stdout)
    assert ("Cannot tell for any phase: each row has fewer than 4 trials in at least one result (n=3 and 3), and a "
            "rank test needs 4 a side: run both with --trials 4 or more.") in text
    assert "cannot tell: n=3 and 3, needs 4 a side" in text and "B differs" not in text and "No difference" not in text
    one = _saved_compare(tmp_path, "one.json", [0.4])
    text = words(run_main(capfd, "report", a, one).stdout)
    assert "Cannot tell for any phase" in text and "(n=4 and 1)" in text and "--trials 4" in text


@pytest.mark.parametrize("other, message", [("sweep.json", "cannot compare results of two commands (compare and sweep)"),
                                            ("inspect.json", "two commands (compare and inspect)")])
def test_report_a_b_refuses_what_cannot_be_compared(other, message, capfd):
    proc = run_main(capfd, "report", FIXTURES / "compare.json", FIXTURES / other)
    assert proc.returncode == 2 and proc.stdout == "" and message in proc.stderr
    assert len(proc.stderr.splitlines()) == 1


def test_report_a_b_needs_a_shared_variant(tmp_path, capfd):
    doc = json.loads((FIXTURES / "compare.json").read_text())
    for name, kept in (("a", ("numpy", "constant")), ("b", ("placeholder", "variable"))):
        part = {**doc, "variants": [r for r in doc["variants"] if r["variant"] in kept]}
        part["config"] = {**doc["config"], "variants": list(kept)}
        (tmp_path / f"{name}.json").write_text(json.dumps(part))
    proc = run_main(capfd, "report", tmp_path / "a.json", tmp_path / "b.json")
    assert proc.returncode == 2 and "no variant in common" in proc.stderr


@pytest.mark.parametrize("name", ["compare", "shapes", "inspect"])
def test_every_tabulate_format_renders(name):
    from tabulate import tabulate_formats

    for fmt in tabulate_formats:
        assert "What this" in render(saved(name), fmt), fmt


def test_csv_lines_of_sweep_and_shapes():
    from tfgraphs.render.csv import CALLS, TRIALS, lines

    fields, found = lines(saved("sweep"), TRIALS)
    assert [(f["batch"], f["variant"]) for f in found] == [(b, v) for b in (20, 40, 80)
                                                           for v in ("constant", "placeholder")]
    assert all(f["later_n"] == 3 and f["first_run_s"] > 0 for f in found)
    fields, found = lines(saved("shapes"), CALLS)
    doc = json.loads((FIXTURES / "shapes.json").read_text())
    calls = sum(len(p) for m in doc["modes"] for p in m["times_s"])
    assert len(found) == calls and set(fields) >= {"mode", "switch", "pass", "length", "seconds"}
    first = doc["modes"][0]
    assert (found[0]["mode"], found[0]["pass"], found[0]["length"], found[0]["seconds"]) == (
        first["mode"], 1, doc["config"]["start"], first["times_s"][0][0])


def test_csv_lines_of_pitfalls():
    from tfgraphs.render.csv import CASES, lines

    doc = json.loads((FIXTURES / "pitfalls.json").read_text())
    _, found = lines(saved("pitfalls"), CASES)
    want = sum(len(c.get("step_s") or [None]) for lesson in doc["lessons"] for c in lesson["cases"])
    assert len(found) == want
    growth = [f for f in found if f.get("step")]
    assert growth and all(f["nodes"] >= 1 and f["seconds"] > 0 for f in growth)
