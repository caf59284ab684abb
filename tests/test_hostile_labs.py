"""Hostile lab solutions: a judge that trusts nothing their process computes, and nothing they leave running."""

import os
import sys
from pathlib import Path

import psutil
import pytest

from tfgraphs.cli import main

SOLUTIONS = Path(__file__).parent / "lab_solutions"


@pytest.mark.parametrize("kind, expected", [
    ("folder", "is a folder: `tfgraphs lab grade 1"), ("fifo", "is not a regular file"), ("notes.md", "is not a Python file"),
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


WRONG = SOLUTIONS / "wrong"


def lab_check(number, path, **timeout_s):
    """(exit status, printed report) of check_lab in this process: the student's code in its child, judged here."""
    import io

    from tfgraphs.labs.checking import check_lab

    out = io.StringIO()
    return check_lab(number, path, stream=out, **timeout_s), out.getvalue()


@pytest.mark.parametrize("number, name, passing", [
    # The checks' helpers, bodies and judges replaced in the child: the judge runs graphs built on its placeholders.
    (4, "lab4_forges_the_checks", 0),
    # NumPy through tf.numpy_function, beside a dummy convolution: the judge runs no op that calls back into Python.
    (4, "lab4_numpy_answer", 0),
    # No warm-up, no session, bodies replaced, infinite samples: the judge makes every run, and counts them itself.
    (5, "lab5_forges_the_checks", 1),
    (6, "lab6_forges_the_checks", 0),
    # main() raises with watch replaced in the child: the judge starts watch itself.
    (7, "lab7_forges_the_checks", 0),
    # A loss NumPy computed beside one Session.run: main() must return a value a run fetched.
    (7, "lab7_numpy_loss", 4),
])
def test_forged_solutions_of_labs_4_to_7_fail_their_checks(number, name, passing):
    code, out = lab_check(number, WRONG / f"{name}.py")
    assert code == 1 and out.strip().splitlines()[-1].startswith(f"lab {number}: {passing} of "), out


def fed_solution(tmp_path, output, imports=""):
    """A lab 1 solution whose build_fed returns the reference's graph with `output` (an expression of `out` made in
    that graph) as its output."""
    path = tmp_path / "student.py"
    path.write_text((SOLUTIONS / "lab1.py").read_text() + f"\n{imports}\n_right_fed = build_fed\n\n\n"
                    "def build_fed(x, w):\n    graph, out, feed = _right_fed(x, w)\n    with graph.as_default():\n"
                    f"        out = {output}\n    return graph, out, feed\n")
    return path


def judged_fed(path, **timeout_s):
    from tfgraphs.labs import rerun
    from tfgraphs.labs.checking import load, run_check

    return run_check(rerun.fed_graph_is_correct, load(path), **timeout_s)


def test_the_judges_own_run_of_a_graph_that_never_ends_stops_at_the_checks_limit(tmp_path):
    path = fed_solution(tmp_path, "out + tf.cast(tf.compat.v1.while_loop(lambda i: i >= 0, lambda i: i + 1, [0]), "
                                  "out.dtype)")
    outcome = judged_fed(path, timeout_s=2.0)
    assert not outcome.passed and outcome.detail == ("your graph, run by the checker, did not finish within 2 s (a "
                                                     "loop that never ends?); stopped"), outcome


def test_a_graph_that_would_fill_the_judges_memory_is_refused_before_it_runs(tmp_path):
    path = fed_solution(tmp_path, "out + tf.reduce_sum(tf.fill([20000, 20000], tf.constant(0.0, out.dtype)))")
    outcome = judged_fed(path)
    assert not outcome.passed and outcome.detail.startswith(
        "your graph was not run: Fill 'Fill' would make 3,200,000,000 bytes"), outcome


def test_a_students_read_file_op_is_not_run_on_the_judges_files(tmp_path):
    secret = tmp_path / "judges-secret"
    secret.write_text("x" * 1000)
    path = fed_solution(tmp_path, f"out + tf.cast(tf.strings.length(tf.io.read_file({str(secret)!r})), out.dtype)")
    outcome = judged_fed(path)
    assert not outcome.passed and outcome.detail.startswith("your graph was not run: it holds ReadFile"), outcome


def test_lab_5_samples_the_rank_test_would_pay_for_or_that_are_no_times_are_refused():
    from tfgraphs.labs.observed import judge_answer

    for cold in ((1.0,) * 12_000, (float("inf"),) * 4, (float("nan"),) * 4):
        passed, seen, _ = judge_answer({"cold": cold, "warm": (1.0, 2.0, 3.0, 4.0), "said": "differs"})
        assert not passed and "expected two lists of times > 0 in ms, finite" in seen and len(seen) < 300, seen


def test_a_solutions_error_message_is_printed_with_its_escapes_shown(tmp_path):
    import io

    from tfgraphs.labs import rerun
    from tfgraphs.labs.checking import load, print_outcomes, run_check

    path = tmp_path / "student.py"
    path.write_text("def build_fed(x, w):\n    raise ValueError('\\x1b[2J\\x1b]0;pwned\\x07')\n")
    out = io.StringIO()
    print_outcomes(1, [run_check(rerun.fed_graph_is_small, load(path))], out)
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
    assert "raised ValueError: \\x1b[2J\\x1b]0;pwned\\x07 (line 2)" in out.getvalue(), out.getvalue()


def test_lab_3s_judge_leaves_no_autograph_module_in_tmpdir(tmp_path, monkeypatch):
    import tempfile

    from tfgraphs.labs import rerun
    from tfgraphs.labs.checking import load, run_check

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert run_check(rerun.const_bytes_match, load(SOLUTIONS / "lab3.py")).passed
    assert not list(tmp_path.glob("__autograph_generated_file*"))


def test_a_solution_that_closes_its_pipes_and_sleeps_is_stopped_at_the_limit(tmp_path):
    path = tmp_path / "student.py"
    path.write_text("import os\nimport time\n\nos.closerange(3, 4096)\ntime.sleep(600)\n")
    code, out = lab_check(1, path, timeout_s=2.0)
    assert code == 1 and "did not finish within 2 s (a loop that never ends?); stopped" in out, out


def test_a_solution_may_not_signal_its_judge_or_its_parent(tmp_path):
    record = tmp_path / "refused"
    path = tmp_path / "student.py"
    # Signal 0 asks only whether a signal would be delivered: the filter refuses every signal to those processes
    # alike, and a SIGSTOP that got through would stop the test session itself.
    path.write_text(
        "import os\nimport sys\n\nrefused = []\n"
        "for pid in {os.getppid(), int(sys.argv[4]) if len(sys.argv) > 4 else os.getppid(), -os.getpgid(os.getppid())}:\n"
        "    try:\n        os.kill(pid, 0)\n    except PermissionError:\n        refused.append(pid)\n"
        f"open({str(record)!r}, 'w').write(str(len(refused)))\n\n" + (SOLUTIONS / "lab1.py").read_text())
    code, out = lab_check(1, path)
    assert code == 0 and out.strip().splitlines()[-1] == "lab 1: 4 of 4 checks passed", out
    assert record.read_text() in ("2", "3")   # the judge, its parent (the same when the child is not forked), group


def test_a_double_forked_daemon_is_ended_and_named_before_the_verdict(tmp_path, capsys):
    daemon = tmp_path / "daemon"
    path = tmp_path / "student.py"
    # It would write to the judge's stdout after the verdict, through /proc: ended before it, it never can.
    path.write_text(
        "import os\nimport sys\n\njudge = int(sys.argv[4]) if len(sys.argv) > 4 else os.getppid()\n"
        "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        f"        os.execvp('sh', ['sh', '-c', 'echo $$ > {daemon}; sleep 3; echo FORGED > /proc/%d/fd/1; "
        "exec sleep 300' % judge])\n    os._exit(0)\nos.wait()\n\n" + (SOLUTIONS / "lab1.py").read_text())
    code, out = lab_check(1, path)
    assert code == 0 and out.strip().splitlines()[-1] == "lab 1: 4 of 4 checks passed", out
    pid = int(daemon.read_text())
    # Ended before check_lab returned, so before any verdict is printed: nothing it would write can follow it.
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    (line,) = [line for line in capsys.readouterr().err.splitlines() if "left running" in line]
    assert f"pid {pid}: sh" in line, line
