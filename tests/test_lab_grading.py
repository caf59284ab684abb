"""`tfgraphs lab grade` of a class: one row a submission whatever it did, one JSON record each, nothing left running."""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from tfgraphs import __version__
from tfgraphs.cli import main
from tfgraphs.errors import UsageError
from tfgraphs.labs import grading
from tfgraphs.labs.grading import Submission, lab_in_name
from tfgraphs.usercode import Tail, tree_rss

SOLUTIONS = Path(__file__).parent / "lab_solutions"


@pytest.fixture
def klass(tmp_path):
    """A class folder: a right lab 1, a wrong one, one that hangs, one that crashes, one that floods its output, one
    naming no lab, a lab 6 as a notebook."""
    subs = tmp_path / "subs"
    for name, source in (("alice/lab1.py", SOLUTIONS / "lab1.py"),
                         ("bob/lab1.py", SOLUTIONS / "wrong" / "lab1_patches_session_run.py"),
                         ("carol/lab1.py", SOLUTIONS / "wrong" / "lab1_hangs.py"),
                         ("dave/6-leak/starter.ipynb", SOLUTIONS / "lab6.py")):
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        text = source.read_text()
        (subs / name).write_text(json.dumps(notebook(text)) if name.endswith(".ipynb") else text)
    (subs / "erin").mkdir()
    (subs / "erin" / "lab1.py").write_text("import os\nos._exit(3)\n")
    (subs / "fran").mkdir()
    (subs / "fran" / "lab1.py").write_text("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    (subs / "notes.py").write_text("X = 1\n")
    (subs / ".ipynb_checkpoints").mkdir()
    (subs / ".ipynb_checkpoints" / "lab1-checkpoint.py").write_text("X = 1\n")
    return subs


def notebook(source):
    """A notebook holding source as its one code cell, as Jupyter or Colab saves one."""
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "id": "solution", "metadata": {}, "execution_count": None, "outputs": [],
         "source": source}]}


def test_a_class_is_one_row_and_one_record_a_submission(klass, tmp_path, capsys):
    before = {p.pid for p in psutil.Process().children(recursive=True)}   # the session's servers of workers stay
    out, book = tmp_path / "grades.json", tmp_path / "grades.csv"
    assert main(["lab", "grade", "all", str(klass), "--timeout", "1", "--jobs", "2", "--json", str(out),
                 "--csv", str(book)]) == 1
    answer, rest = capsys.readouterr().out.split("\n\nEach check")
    summary, printed = rest.split("\n\n")
    printed = printed.splitlines()
    doc = json.loads(out.read_text())
    rows = {s["name"]: (s["lab"], s["status"], s["passed"], s["checks"]) for s in doc["submissions"]}
    assert rows == {"alice/lab1.py": (1, "passed", 4, 4), "bob/lab1.py": (1, "failed", 1, 4),
                    "carol/lab1.py": (1, "timeout", 0, 4), "dave/6-leak/starter.ipynb": (6, "passed", 4, 4),
                    "erin/lab1.py": (1, "crashed", 0, 4), "fran/lab1.py": (1, "timeout", 0, 4),
                    "notes.py": (None, "unmatched", 0, 0)}
    assert doc["schema"] == 1 and doc["jobs"] == 2 and doc["timeout_s"] == 1
    carol = next(s for s in doc["submissions"] if s["name"] == "carol/lab1.py")
    assert [o["passed"] for o in carol["outcomes"]] == [False] * 4
    assert carol["outcomes"][0]["detail"].startswith("did not finish within 1 s")
    assert all(set(o) == {"name", "passed", "detail", "hint"} for s in doc["submissions"] for o in s["outcomes"])
    assert answer.startswith("2 of 7 submissions passed every check; ") and "\n" not in answer
    assert printed[0].split() == ["submission", "lab", "passed", "time", "result"]
    assert [line.split()[0] for line in printed[1:] if not line.startswith("  ")] == sorted(rows)
    assert all(len(line) <= 100 for line in printed)
    assert "  loading your file: the process running your code ended with status 3" in printed
    assert not [p.cmdline() for p in psutil.Process().children(recursive=True) if p.pid not in before
                and p.status() != psutil.STATUS_ZOMBIE and "tfgraphs.processes" not in p.cmdline()]
    assert_gradebook(doc, book, summary)
    assert_unchanged_keep_their_rows(klass, out, doc, capsys)


def assert_gradebook(doc, book, summary):
    """The CSV has a row a submission and a column a check; the summary a bar a check and the most failed one."""
    with open(book, newline="") as f:
        rows = list(csv.DictReader(f))
    lab1 = [o["name"] for o in next(s for s in doc["submissions"] if s["name"] == "alice/lab1.py")["outcomes"]]
    assert [r["file"] for r in rows] == [s["name"] for s in doc["submissions"]]
    assert list(rows[0])[:5] == ["file", "lab", "result", "passed", "checks"] and list(rows[0])[-2:] == ["seconds",
                                                                                                         "why"]
    assert [c for c in rows[0] if c.startswith("lab 1: ")] == [f"lab 1: {name}" for name in lab1]
    bob = next(r for r in rows if r["file"] == "bob/lab1.py")
    assert [bob[f"lab 1: {name}"] for name in lab1] == ["1", "0", "0", "0"] and bob["lab"] == "1"
    erin = next(r for r in rows if r["file"] == "erin/lab1.py")
    assert [erin[f"lab 1: {name}"] for name in lab1] == [""] * 4 and "status 3" in erin["why"]
    lines = summary.splitlines()
    bars = [line for line in lines if line.startswith("  #") or line.startswith("  .")]
    assert len(bars) == 8 and all(len(line) <= 100 for line in lines)   # lab 1's four checks and lab 6's four
    assert bars[0].split()[1:4] == ["2", "of", "3"]   # alice and bob passed lab 1's first; carol's hang did not
    assert "Reached no check: 2 (1 crashed, 1 timeout; each one's row says why)" in lines
    most = " ".join(line.strip() for line in lines[lines.index("Reached no check: 2 (1 crashed, 1 timeout; each "
                                                               "one's row says why)") + 1:])
    assert most.startswith("Failed most often: lab 1: ") and " (2 of 3); its most common hint: " in most


def assert_unchanged_keep_their_rows(klass, out, doc, capsys):
    """Graded again with the same --json, only the submission whose bytes changed is judged."""
    (klass / "erin" / "lab1.py").write_text("import os\nos._exit(4)\n")
    assert main(["lab", "grade", "all", str(klass), "--timeout", "1", "--jobs", "2", "--json", str(out)]) == 1
    printed = capsys.readouterr().out.splitlines()
    again = json.loads(out.read_text())
    judged = {s["name"]: s["judged"] for s in again["submissions"]}
    assert judged == {"alice/lab1.py": False, "bob/lab1.py": False, "carol/lab1.py": False,
                      "dave/6-leak/starter.ipynb": False, "erin/lab1.py": True, "fran/lab1.py": False, "notes.py": True}
    assert [s["outcomes"] for s in again["submissions"] if s["name"] != "erin/lab1.py"] == \
           [s["outcomes"] for s in doc["submissions"] if s["name"] != "erin/lab1.py"]
    assert "status 4" in next(s["reason"] for s in again["submissions"] if s["name"] == "erin/lab1.py")
    assert sum(line.endswith(" (unchanged)") for line in printed) == 5
    assert printed[0].startswith("2 of 7 submissions passed every check; ")
    assert printed[1] == "5 unchanged since the grades given, not judged again (--regrade judges them)."


def test_a_flood_of_output_is_kept_to_its_last_lines():
    read, write = os.pipe()
    with os.fdopen(read) as stream:
        tail = Tail(stream, lines=8, line_chars=1000)
        with os.fdopen(write, "w") as out:
            out.write("x" * 10_000_000 + "\nlast line\n")
        kept = list(tail.finished())
    assert len(kept) == 8 and kept[-1] == "last line\n" and all(len(line) <= 1000 for line in kept)


def test_one_submission_as_gradescopes_results(tmp_path, capsys):
    (tmp_path / "lab1.py").write_text("import os\nos._exit(3)\n")
    out = tmp_path / "results.json"
    assert main(["lab", "grade", "1", str(tmp_path / "lab1.py"), "--gradescope", str(out)]) == 1
    results = json.loads(out.read_text())
    assert set(results) == {"score", "execution_time", "tests", "output"} and results["score"] == 0
    assert [(t["name"], t["score"], t["max_score"], t["status"]) for t in results["tests"]] == \
           [("loading your file", 0, 4, "failed")]
    assert results["tests"][0]["output"].startswith("crashed: loading your file: the process running your code "
                                                    "ended with status 3")
    assert results["output"] == "lab 1: 0 of 4 checks passed"
    assert "Each check" not in capsys.readouterr().out   # one submission has no class to sum up


def test_gradescopes_results_of_a_judged_submission_score_a_point_a_check():
    outcomes = [{"name": "a", "passed": True, "detail": "4 cases", "hint": ""},
                {"name": "b", "passed": False, "detail": "got 3", "hint": "read step 2"}]
    sub = Submission("lab1.py", 1, "lab1.py", "failed", "b: got 3", 1, 2, 1.5, outcomes)
    results = grading.gradescope(sub)
    assert results["score"] == 1 and results["execution_time"] == 1.5
    assert [(t["name"], t["score"], t["max_score"], t["status"], t["output"]) for t in results["tests"]] == \
           [("a", 1, 1, "passed", "4 cases"), ("b", 0, 1, "failed", "got 3\nhint: read step 2")]


def test_files_of_one_lab_and_a_single_file_as_before(klass, capsys):
    assert main(["lab", "grade", "1", str(klass / "alice" / "lab1.py"), str(klass / "bob")]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("1 of 2 submissions passed every check; ")
    table = next(printed[i:] for i, line in enumerate(printed) if line.startswith("submission "))
    assert [line.split()[-1] for line in table[1:3]] == ["passed", "failed"]
    assert main(["lab", "check", "1", str(klass / "alice" / "lab1.py")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "lab 1: 4 of 4 checks passed"


@pytest.mark.parametrize("args, expected", [
    (["lab", "grade", "all", "{tmp}/empty"], "empty holds no .py or .ipynb file to check"),
    (["lab", "grade", "8", "{tmp}/empty"], "no lab 8"),
    (["lab", "check", "1", "{tmp}/empty"], "empty is a folder: `tfgraphs lab grade 1 {tmp}/empty` grades every file"),
    (["lab", "check", "1", "{tmp}/x.py", "{tmp}/y.py"], "unrecognized arguments"),
    (["lab", "grade", "1", "{tmp}/a.md"], "is not a Python file"),
    (["lab", "grade", "1", "{tmp}/x.py", "--jobs", "0"], "--jobs"),
    (["lab", "grade", "1", "{tmp}/x.py", "{tmp}/y.py", "--gradescope", "{tmp}/r.json"],
     "--gradescope writes one submission's results.json, and 2 were given"),
    (["lab", "grade", "1", "{tmp}/x.py", "--json", "{tmp}/a.json"],
     "a.json is not a class's grades written by `tfgraphs lab grade --json`; name another file"),
    (["lab", "grade", "1", "{tmp}/x.py", "--json", "{tmp}/b.json"],
     "b.json: submissions[0].sha256 is missing: not what `tfgraphs lab grade --json` writes"),
])
def test_a_class_with_bad_input_is_refused_before_anything_starts(tmp_path, capsys, args, expected):
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.md").write_text("#\n")
    (tmp_path / "x.py").write_text("X = 1\n")
    (tmp_path / "y.py").write_text("X = 1\n")
    (tmp_path / "a.json").write_text("[]\n")
    (tmp_path / "b.json").write_text(json.dumps({"schema": 1, "kind": "lab grades", "tfgraphs_version": __version__,
                                                 "timeout_s": 60.0, "memory_bytes": 4 * 2**30,
                                                 "submissions": [{"name": "x.py", "lab": 1}]}))
    modules = set(sys.modules)
    try:
        code = main([a.format(tmp=tmp_path) for a in args])
    except SystemExit as exc:   # argparse's own refusal of --jobs 0
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected.format(tmp=tmp_path) in err[0], err
    assert "tensorflow" not in set(sys.modules) - modules


@pytest.mark.parametrize("path, lab", [
    ("subs/lab3.py", 3), ("subs/alice/Lab-2.ipynb", 2), ("subs/lab_4/alice.py", 4), ("subs/ann/5-warm/starter.py", 5),
    ("subs/lab9.py", None), ("subs/alice.py", None), ("subs/lab7/lab2.py", 2),
])
def test_the_lab_a_file_is_judged_against_is_the_one_its_name_or_nearest_folder_names(path, lab):
    assert lab_in_name(path.replace("/", os.sep), "subs") == lab


def test_earlier_grades_lend_rows_only_to_the_same_checker_and_limits(tmp_path):
    path, limits = tmp_path / "grades.json", (60.0, 4 * 2**30)
    sub = Submission("a/lab1.py", 1, "a/lab1.py", "passed", "", 4, 4, 1.0, [], sha256="ab")
    path.write_text(json.dumps(grading.document([sub], 1.0, 2, limits)))
    assert set(grading.earlier(str(path), limits)) == {("a/lab1.py", 1, "ab")}
    assert grading.earlier(str(path), (30.0, 4 * 2**30)) == {}   # another --timeout: judged again
    assert grading.earlier(str(tmp_path / "none.json"), limits) == {}
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, "submissions": {}}))
    with pytest.raises(UsageError, match="submissions is not a list"):
        grading.earlier(str(path), limits)
    path.write_text(json.dumps({**doc, "submissions": [{**doc["submissions"][0], "outcomes": [{"name": 1}]}]}))
    with pytest.raises(UsageError, match=r"submissions\[0\]\.outcomes\[0\]\.name is 1, not a string: not what"):
        grading.earlier(str(path), limits)


def test_the_gradebook_leaves_a_row_without_a_lab_empty(tmp_path):
    passed = Submission("a/lab3.py", 3, "a/lab3.py", "passed", "", 1, 1, 0.5,
                        [{"name": "c", "passed": True, "detail": "", "hint": ""}])
    unmatched = Submission("notes.py", None, "notes.py", "unmatched", "no lab number", 0, 0, 0.0)
    grading.write_csv([passed, unmatched], str(tmp_path / "g.csv"))
    with open(tmp_path / "g.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows == [["file", "lab", "result", "passed", "checks", "c", "seconds", "why"],
                    ["a/lab3.py", "3", "passed", "1", "1", "1", "0.500", ""],
                    ["notes.py", "", "unmatched", "0", "0", "", "0.000", "no lab number"]]


def test_progress_is_one_line_rewritten_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    sub = Submission("subs/a/lab1.py", 1)
    grading.print_progress(1, 2, sub)
    grading.print_progress(2, 2, sub)
    assert capsys.readouterr().err == f"\r[1/2] {sub.path:<60}\r[2/2] {sub.path:<60}\n"


def test_the_memory_of_a_process_tree_is_counted_and_an_ended_one_holds_none():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert tree_rss(os.getpid()) > tree_rss(proc.pid) > 0
    finally:
        proc.kill()
        proc.wait()
    assert tree_rss(proc.pid) == 0


@pytest.mark.parametrize("code, out, err, row", [
    (None, "", [], ("timeout", "stopped after 660 s in all")),
    (-9, "Traceback ...\n", ["warming up\n", "Killed\n", "\n"], ("crashed", "the judge ended with status -9: Killed")),
    (0, json.dumps({"usage": "/x/lab1.py is not a Python file", "checks": 4, "ended": [[7, "sleep"]]}), [],
     ("unusable", "/x/lab1.py is not a Python file")),
])
def test_a_judge_that_sends_no_outcomes_is_a_row_that_says_why(code, out, err, row):
    sub = Submission("lab1.py", 1, "lab1.py")
    grading.fill(sub, code, out, err, 660)
    assert (sub.status, sub.reason) == row and sub.passed == 0


def test_an_earlier_record_that_is_not_an_object_is_refused(tmp_path):
    limits = (60.0, 4 * 2**30)
    doc = grading.document([], 1.0, 2, limits)
    (tmp_path / "g.json").write_text(json.dumps({**doc, "submissions": ["x"]}))
    with pytest.raises(UsageError, match=r"submissions\[0\] is not an object"):
        grading.earlier(str(tmp_path / "g.json"), limits)
