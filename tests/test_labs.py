"""Every lab's checker passes its reference solution and fails its untouched starter."""

from pathlib import Path

import pytest

from conftest import run_cli
from tfgraphs.labs import LABS

ROOT = Path(__file__).resolve().parent.parent


def starter(number):
    (path,) = ROOT.glob(f"labs/{number}-*/starter.py")
    return path


@pytest.mark.parametrize("number", sorted(LABS))
def test_solution_passes(number):
    proc = run_cli("lab", "check", number, ROOT / "tests" / "lab_solutions" / f"lab{number}.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WRONG" not in proc.stdout
    assert proc.stdout.strip().endswith("checks passed")


@pytest.mark.parametrize("number", sorted(LABS))
def test_starter_fails(number):
    proc = run_cli("lab", "check", number, starter(number))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "WRONG" in proc.stdout and "hint:" in proc.stdout


@pytest.mark.parametrize("number", sorted(LABS))
def test_every_lab_has_a_sheet(number):
    sheet = starter(number).parent / "README.md"
    text = sheet.read_text()
    for heading in ("## Goals", "## Steps", "## Questions"):
        assert heading in text, (sheet, heading)
    assert f"tfgraphs lab check {number} " in text


def test_bad_lab_inputs(tmp_path):
    proc = run_cli("lab", "check", 9, starter(1))
    assert proc.returncode == 2 and "no lab 9" in proc.stderr
    proc = run_cli("lab", "check", 1, tmp_path / "missing.py")
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("def build_fed(:\n")
    proc = run_cli("lab", "check", 1, broken)
    assert proc.returncode == 2 and "fails to import: SyntaxError" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    proc = run_cli("lab", "check", 1, exits)
    assert proc.returncode == 2 and "calls sys.exit(3) when imported" in proc.stderr


def test_lab_list():
    proc = run_cli("lab", "list")
    assert proc.returncode == 0
    assert proc.stdout.splitlines() == [f"{n}. {title}" for n, title in LABS.items()]


def test_a_hang_and_a_crash_are_wrong_with_the_reason(tmp_path):
    marker = tmp_path / "hung-once"
    student = tmp_path / "student.py"
    student.write_text(
        "import os\n"
        f"MARKER = {str(marker)!r}\n"
        "def blocked_conv1d(x, filters, block_len):\n"
        "    if not os.path.exists(MARKER):\n"
        "        open(MARKER, 'w').close()\n"
        "        while True:\n"
        "            pass\n"
        "    os._exit(7)\n")
    proc = run_cli("lab", "check", 4, student, "--timeout", 3)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first, second = [line for line in proc.stdout.splitlines() if line.startswith("WRONG")]
    assert first.endswith("did not finish within 3 s (a loop that never ends?); stopped")
    assert "the process running your code ended with status 7" in second
    assert proc.stdout.strip().endswith("lab 4: 0 of 2 checks passed")
