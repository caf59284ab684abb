"""`tfgraphs lab check` of a class: one row a submission whatever it did, one JSON record each, nothing left running."""

import json
import os
import sys
from pathlib import Path

import psutil
import pytest

from tfgraphs.cli import main
from tfgraphs.labs.grading import lab_in_name

SOLUTIONS = Path(__file__).parent / "lab_solutions"


@pytest.fixture
def klass(tmp_path):
    """A class folder: a right lab 1, a wrong one, one that hangs, one that crashes, one naming no lab, a lab 6."""
    subs = tmp_path / "subs"
    for name, source in (("alice/lab1.py", SOLUTIONS / "lab1.py"),
                         ("bob/lab1.py", SOLUTIONS / "wrong" / "lab1_patches_session_run.py"),
                         ("carol/lab1.py", SOLUTIONS / "wrong" / "lab1_hangs.py"),
                         ("dave/6-leak/starter.py", SOLUTIONS / "lab6.py")):
        (subs / name).parent.mkdir(parents=True, exist_ok=True)
        (subs / name).write_text(source.read_text())
    (subs / "erin").mkdir()
    (subs / "erin" / "lab1.py").write_text("import os\nos._exit(3)\n")
    (subs / "notes.py").write_text("X = 1\n")
    (subs / ".ipynb_checkpoints").mkdir()
    (subs / ".ipynb_checkpoints" / "lab1-checkpoint.py").write_text("X = 1\n")
    return subs


def test_a_class_is_one_row_and_one_record_a_submission(klass, tmp_path, capsys):
    before = {p.pid for p in psutil.Process().children(recursive=True)}   # the session's servers of workers stay
    out = tmp_path / "grades.json"
    assert main(["lab", "check", "all", str(klass), "--timeout", "1", "--jobs", "2", "--json", str(out)]) == 1
    printed = capsys.readouterr().out.splitlines()
    doc = json.loads(out.read_text())
    rows = {s["name"]: (s["lab"], s["status"], s["passed"], s["checks"]) for s in doc["submissions"]}
    assert rows == {"alice/lab1.py": (1, "passed", 4, 4), "bob/lab1.py": (1, "failed", 1, 4),
                    "carol/lab1.py": (1, "timeout", 0, 4), "dave/6-leak/starter.py": (6, "passed", 4, 4),
                    "erin/lab1.py": (1, "crashed", 0, 4), "notes.py": (None, "unmatched", 0, 0)}
    assert doc["schema"] == 1 and doc["jobs"] == 2 and doc["timeout_s"] == 1
    carol = next(s for s in doc["submissions"] if s["name"] == "carol/lab1.py")
    assert [o["passed"] for o in carol["outcomes"]] == [False] * 4
    assert carol["outcomes"][0]["detail"].startswith("did not finish within 1 s")
    assert all(set(o) == {"name", "passed", "detail", "hint"} for s in doc["submissions"] for o in s["outcomes"])
    assert printed[0].split() == ["submission", "lab", "passed", "time", "result"]
    assert printed[-1].startswith("2 of 6 submissions passed every check; ")
    assert [line.split()[0] for line in printed[1:-1] if not line.startswith("  ")] == sorted(rows)
    assert all(len(line) <= 100 for line in printed)
    assert "  loading your file: the process running your code ended with status 3" in printed
    assert not [p.cmdline() for p in psutil.Process().children(recursive=True) if p.pid not in before
                and p.status() != psutil.STATUS_ZOMBIE and "tfgraphs.processes" not in p.cmdline()]


def test_files_of_one_lab_and_a_single_file_as_before(klass, capsys):
    assert main(["lab", "check", "1", str(klass / "alice" / "lab1.py"), str(klass / "bob")]) == 1
    printed = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in printed[1:3]] == ["passed", "failed"]
    assert printed[-1].startswith("1 of 2 submissions passed every check; ")
    assert main(["lab", "check", "1", str(klass / "alice" / "lab1.py")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "lab 1: 4 of 4 checks passed"


@pytest.mark.parametrize("args, expected", [
    (["lab", "check", "all", "{tmp}/empty"], "empty holds no .py or .ipynb file to check"),
    (["lab", "check", "8", "{tmp}/empty"], "no lab 8"),
    (["lab", "check", "1", "{tmp}/a.md"], "is not a Python file"),
    (["lab", "check", "1", "{tmp}/x.py", "--jobs", "0"], "--jobs"),
])
def test_a_class_with_bad_input_is_refused_before_anything_starts(tmp_path, capsys, args, expected):
    (tmp_path / "empty").mkdir()
    (tmp_path / "a.md").write_text("#\n")
    (tmp_path / "x.py").write_text("X = 1\n")
    modules = set(sys.modules)
    try:
        code = main([a.format(tmp=tmp_path) for a in args])
    except SystemExit as exc:   # argparse's own refusal of --jobs 0
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err
    assert "tensorflow" not in set(sys.modules) - modules


@pytest.mark.parametrize("path, lab", [
    ("subs/lab3.py", 3), ("subs/alice/Lab-2.ipynb", 2), ("subs/lab_4/alice.py", 4), ("subs/ann/5-warm/starter.py", 5),
    ("subs/lab9.py", None), ("subs/alice.py", None), ("subs/lab7/lab2.py", 2),
])
def test_the_lab_a_file_is_judged_against_is_the_one_its_name_or_nearest_folder_names(path, lab):
    assert lab_in_name(path.replace("/", os.sep), "subs") == lab
