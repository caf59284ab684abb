"""Every lab's checker fails its untouched starter and plausible wrong ones (solutions pass in test_lab_notebooks)."""

import io
from pathlib import Path

import pytest

from conftest import run_cli
from tfgraphs.labs import LABS

ROOT = Path(__file__).resolve().parent.parent


def starter(number):
    (path,) = ROOT.glob(f"tfgraphs/labs/course/{number}-*/starter.py")
    return path


def check(number, path):
    """(exit status, printed report) of `tfgraphs lab check` run in process: TensorFlow is imported once."""
    from tfgraphs.labs.checking import check_lab

    out = io.StringIO()
    return check_lab(number, path, stream=out), out.getvalue()


@pytest.mark.parametrize("number", sorted(LABS))
def test_starter_fails(number):
    code, out = check(number, starter(number))
    assert code == 1, out
    assert "WRONG" in out and "hint:" in out


def test_cli_check_prints_the_same_report():
    proc = run_cli("lab", "check", 4, ROOT / "tests" / "lab_solutions" / "lab4.py")
    assert (proc.returncode, proc.stdout) == check(4, ROOT / "tests" / "lab_solutions" / "lab4.py")


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


WRONG = ROOT / "tests" / "lab_solutions" / "wrong"


@pytest.mark.parametrize("number, path, failing", [
    # Warming only the scores builds an executor for another fetch list than the one served.
    (5, WRONG / "lab5_warms_part.py", {"warm_up runs the same fetches and feeds as serve()",
                                       "first_request_seconds times the first serve() in a fresh session, cold and "
                                       "warmed"}),
    # A new graph per step hides the growth but rebuilds everything on every step.
    (6, WRONG / "lab6_graph_per_step.py", {"every step runs in the same session and graph"}),
    (6, WRONG / "lab6_no_finalize.py", {"the graph is finalized before the training steps run"}),
    # Judging happens apart from the student's code: what it replaces in its own process judges nothing.
    (1, WRONG / "lab1_patches_numpy.py", {"build_fed: the output matches the NumPy reference",
                                          "build_fed: the same graph runs on a batch of another size",
                                          "build_loaded: small graph, X held in a variable after one fed "
                                          "initializer, later runs without any feed"}),
    (1, WRONG / "lab1_replaces_the_checker.py", {"build_fed: the GraphDef does not hold X",
                                                 "build_fed: the output matches the NumPy reference",
                                                 "build_fed: the same graph runs on a batch of another size",
                                                 "build_loaded: small graph, X held in a variable after one fed "
                                                 "initializer, later runs without any feed"}),
    (1, WRONG / "lab1_patches_the_checks.py", {"build_fed: the GraphDef does not hold X",
                                               "build_fed: the same graph runs on a batch of another size",
                                               "build_loaded: small graph, X held in a variable after one fed "
                                               "initializer, later runs without any feed"}),
])
def test_plausible_wrong_solutions_fail(number, path, failing):
    code, out = check(number, path)
    assert code == 1
    import importlib

    from tfgraphs.labs.checking import check_name

    names = [check_name(c) for c in importlib.import_module(f"tfgraphs.labs.check{number}").CHECKS]
    wrong = {n for n in names if any(line.startswith(f"WRONG {n}") for line in out.splitlines())}
    assert wrong == failing, out


def test_checks_record_runs_and_sessions():
    from tfgraphs.labs.sessions import RecordingSession, recording, signature

    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None], name="x")
        a, b = tf.identity(x, name="a"), tf.identity(x, name="b")
    with recording() as created:
        with tf.compat.v1.Session(graph=graph) as sess:
            sess.run([b, a], {x: [1.0]})
            graph.finalize()
            sess.run({"k": a}, {"x:0": [2.0]})
    assert len(created) == 1 and isinstance(created[0], RecordingSession)
    assert tf.compat.v1.Session is not RecordingSession
    assert created[0].runs == [(signature(graph, [a, b], {x: 0}), False),
                               ((frozenset({"a:0"}), frozenset({"x:0"})), True)]


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
