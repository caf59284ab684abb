"""Hostile lab solutions: a judge that trusts nothing their process computes, and nothing they leave running."""

import os
import sys
from pathlib import Path

import psutil
import pytest

from tfgraphs.cli import main

SOLUTIONS = Path(__file__).parent / "lab_solutions"


@pytest.mark.parametrize("kind, expected", [
    ("folder", "holds no .py or .ipynb file to check"), ("fifo", "is not a regular file"), ("notes.md", "is not a Python file"),
    ("missing.py", "does not exist"),
])
def test_lab_check_refuses_what_is_no_solution_before_starting_anything(tmp_path, capsys, kind, expected):
    path = tmp_path / kind
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind.endswith(".md"):
        path.write_text("# notes\n")
    modules = set(sys.modules)
    assert main(["lab", "check", "1", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0], err
    assert "tensorflow" not in set(sys.modules) - modules


def test_what_a_solution_leaves_running_is_ended_and_said(tmp_path, capsys):
    solution = tmp_path / "sleeper.py"
    solution.write_text("import subprocess\n\nLEFT = subprocess.Popen(['sleep', '300'])\n\n"
                        + (SOLUTIONS / "lab1.py").read_text())
    assert main(["lab", "check", "1", str(solution)]) == 0
    captured = capsys.readouterr()
    assert "lab 1: 4 of 4 checks passed" in captured.out
    (line,) = [line for line in captured.err.splitlines() if "left running" in line]
    pid = int(line.split("(pid ")[1].split(":")[0])
    assert line.endswith(f"ended 1 process your code left running (pid {pid}: sleep)")
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
