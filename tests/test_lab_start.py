"""`tfgraphs lab start` copies exactly a lab's files and never overwrites; `lab list`; `lab check` of a notebook.

The command runs in this process (run_main, check_lab); in a process of its own only to copy a lab as a user would,
and to show that a notebook that fails to import leaves one line on stderr of a fresh interpreter.
"""

import io
import re
from pathlib import Path

import pytest

from conftest import run_cli, run_main
from tfgraphs.labs import LABS

COURSE = Path(__file__).resolve().parent.parent / "tfgraphs" / "labs" / "course"
FILES = ["README.md", "course.md", "starter.ipynb", "starter.py"]
LINK = re.compile(r"\]\(([^)\s#]*)(?:#[^)\s]*)?\)")


def run_in(folder, monkeypatch, capfd, *args):
    """`tfgraphs ARGS` run from folder, in this process."""
    monkeypatch.chdir(folder)
    return run_main(capfd, *args)


def test_start_copies_the_lab(tmp_path):
    proc = run_cli("lab", "start", 2, tmp_path / "mine")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == FILES
    for name in ("starter.py", "starter.ipynb"):
        assert (tmp_path / "mine" / name).read_bytes() == (COURSE / "2-first-run" / name).read_bytes()
    assert proc.stdout.splitlines() == [str(tmp_path / "mine" / name) for name in ("README.md", "starter.py",
                                                                                     "starter.ipynb", "course.md")]


@pytest.mark.parametrize("number", sorted(LABS))
def test_every_link_of_a_copied_page_opens_a_copied_file(tmp_path, number):
    from tfgraphs.labs import start

    start(number, tmp_path)
    sheet, course = (tmp_path / name for name in ("README.md", "course.md"))
    for page in (sheet, course):
        targets = [t for t in LINK.findall(page.read_text()) if "://" not in t]
        assert targets and all((tmp_path / t).is_file() for t in targets), (page.name, targets)
    # The course page is the shipped one but for its links; the sheet links it, and it links the sheet back.
    assert "](course.md)" in sheet.read_text() and "](README.md)" in course.read_text()
    shipped = (COURSE / "README.md").read_text()
    assert re.sub(r"\]\([^)]*\)|[\[\]]", "", course.read_text()) == re.sub(r"\]\([^)]*\)|[\[\]]", "", shipped)


def test_start_defaults_to_lab_n(tmp_path, monkeypatch, capfd):
    proc = run_in(tmp_path, monkeypatch, capfd, "lab", "start", 6)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "lab6").iterdir()) == FILES


def test_start_refuses_to_overwrite(tmp_path, monkeypatch, capfd):
    (tmp_path / "lab1").mkdir()
    (tmp_path / "lab1" / "starter.py").write_text("my work\n")
    (tmp_path / "lab1" / "notes.txt").write_text("mine too\n")
    proc = run_in(tmp_path, monkeypatch, capfd, "lab", "start", 1)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        "tfgraphs: lab1/starter.py already exists; choose another folder: tfgraphs lab start 1 DIR"]
    assert sorted(p.name for p in (tmp_path / "lab1").iterdir()) == ["notes.txt", "starter.py"]
    assert (tmp_path / "lab1" / "starter.py").read_text() == "my work\n"


@pytest.mark.parametrize("args, message", [
    ((9,), f"no lab 9; the labs are {', '.join(map(str, LABS))}"),
    (("one",), "argument number: 'one' is not a whole number"),
    ((0,), "argument number: 0 must be at least 1"),
])
def test_start_bad_input(tmp_path, monkeypatch, capfd, args, message):
    proc = run_in(tmp_path, monkeypatch, capfd, "lab", "start", *args)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_start_refuses_a_file_as_folder(tmp_path, capfd):
    (tmp_path / "taken").write_text("")
    proc = run_main(capfd, "lab", "start", 3, tmp_path / "taken")
    assert proc.returncode == 2 and "is a file, not a folder" in proc.stderr


def test_list_says_how_to_start(capfd):
    proc = run_main(capfd, "lab", "list")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[:len(LABS)] == [f"{n}. {title}" for n, title in LABS.items()]
    assert lines[len(LABS)].startswith("Start lab N: `tfgraphs lab start N` copies its sheet, its two starters and")
    assert lines[-1].startswith("Grade a class: `tfgraphs lab grade N FOLDER --csv grades.csv`")
    assert max(map(len, lines)) <= 100


def check(number, path):
    """(exit status, printed report) of `tfgraphs lab check N PATH`: check_lab, what the command runs."""
    from tfgraphs.labs.checking import check_lab

    out = io.StringIO()
    return check_lab(number, path, stream=out), out.getvalue()


def test_check_takes_a_notebook(tmp_path, capfd):
    """A notebook is checked as its code cells: the starter's fails, the solution's as a notebook passes."""
    jupytext = pytest.importorskip("jupytext")
    # Lab 3: the quickest to judge of the labs whose checks run the student's graphs.
    code, out = check(3, COURSE / "3-bloat" / "starter.ipynb")
    assert code == 1 and "WRONG" in out, out
    solution = jupytext.read(COURSE.parent.parent.parent / "tests" / "lab_solutions" / "lab3.py")
    jupytext.write(solution, tmp_path / "solved.ipynb")
    code, out = check(3, tmp_path / "solved.ipynb")
    assert code == 0 and out.strip().endswith("lab 3: 3 of 3 checks passed"), out
    (tmp_path / "broken.ipynb").write_text("{not json")
    proc = run_main(capfd, "lab", "check", 3, tmp_path / "broken.ipynb")
    assert proc.returncode == 2 and "is not a notebook jupytext can read" in proc.stderr


def test_every_copied_file_ships_as_package_data():
    """setup.cfg's package data holds every file `lab start` copies, and nothing from tests/ (the solutions)."""
    import configparser

    from tfgraphs.labs import FILES as COPIED

    config = configparser.ConfigParser()
    config.read(COURSE.parent.parent.parent / "setup.cfg")
    patterns = config["options.package_data"]["tfgraphs.labs"].split()
    shipped = {p.relative_to(COURSE.parent) for pattern in patterns for p in COURSE.parent.glob(pattern)}
    wanted = {p.relative_to(COURSE.parent) for name in COPIED for p in COURSE.glob(f"*/{name}")}
    assert len(wanted) == len(LABS) * len(COPIED) and wanted <= shipped
    assert shipped - wanted == {Path("course/README.md")}


def test_a_notebook_that_fails_to_import_is_named_not_its_temporary_file(tmp_path, capfd):
    import nbformat

    path = tmp_path / "broken.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def f(:\n    pass")]), path)
    proc = run_main(capfd, "lab", "check", 1, path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert f"{path} (its code cells as one .py" in proc.stderr and "tfgraphs-notebook-" not in proc.stderr
