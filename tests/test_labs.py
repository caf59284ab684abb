"""Every lab's checker fails its untouched starter and plausible wrong ones (solutions pass in test_lab_notebooks).

Each check_lab starts the child process that runs the student's code, as `tfgraphs lab check` does; the command line
itself runs in a process of its own twice: once to print what check_lab prints, once to refuse a file in one line.
"""

import io
from pathlib import Path

import pytest

from conftest import run_cli, run_main
from tfgraphs.labs import LABS

ROOT = Path(__file__).resolve().parent.parent


def starter(number):
    (path,) = ROOT.glob(f"tfgraphs/labs/course/{number}-*/starter.py")
    return path


def check(number, path, **timeout_s):
    """(exit status, printed report) of `tfgraphs lab check` run in process: TensorFlow is imported once."""
    from tfgraphs.labs.checking import check_lab

    out = io.StringIO()
    return check_lab(number, path, stream=out, **timeout_s), out.getvalue()


@pytest.mark.parametrize("number", sorted(LABS))
def test_starter_fails(number):
    # Judged in this process (TensorFlow imported once): the child's protocol is tested on the wrong solutions below.
    from tfgraphs.labs.checking import checks_of, load, print_outcomes, run_check

    module = load(starter(number))
    checks = checks_of(number)
    out = io.StringIO()
    code = print_outcomes(number, [run_check(c, module) for c in checks], out)
    out = out.getvalue()
    assert code == 1, out
    lines = out.splitlines()
    # Each WRONG line names the goal; the next says what was seen, and a hint may follow.
    wrong = [i for i, line in enumerate(lines) if line.startswith("WRONG ")]
    assert wrong and all(lines[i + 1].startswith("      seen: ") for i in wrong), out
    assert "      hint: " in out


def test_cli_check_prints_the_same_report():
    # Lab 3: the quickest to judge of the labs whose checks run the student's graphs.
    proc = run_cli("lab", "check", 3, ROOT / "tests" / "lab_solutions" / "lab3.py")
    assert (proc.returncode, proc.stdout) == check(3, ROOT / "tests" / "lab_solutions" / "lab3.py")
    assert proc.returncode == 0 and proc.stdout.count("ok ") == 3, proc.stdout


@pytest.mark.parametrize("number", sorted(LABS))
def test_every_lab_has_a_sheet(number):
    sheet = starter(number).parent / "README.md"
    text = sheet.read_text()
    for heading in ("## Goals", "## Steps", "## Questions"):
        assert heading in text, (sheet, heading)
    assert f"tfgraphs lab check {number} " in text


def test_bad_lab_inputs(tmp_path, capfd):
    proc = run_main(capfd, "lab", "check", 9, starter(1))
    assert proc.returncode == 2 and "no lab 9" in proc.stderr
    proc = run_main(capfd, "lab", "check", 1, tmp_path / "missing.py")
    assert proc.returncode == 2 and "does not exist" in proc.stderr
    broken = tmp_path / "broken.py"
    broken.write_text("def build_fed(:\n")
    # A fresh process: the refusal must be the one line on stderr even while TensorFlow loads there.
    proc = run_cli("lab", "check", 1, broken)
    assert proc.returncode == 2 and "fails to import: SyntaxError" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    proc = run_main(capfd, "lab", "check", 1, exits)
    assert proc.returncode == 2 and "calls sys.exit(3) when imported" in proc.stderr


WRONG = ROOT / "tests" / "lab_solutions" / "wrong"
# Lab 1's checks, by the goal each names.
SMALL, OUTPUT = "X is not in build_fed's GraphDef", "build_fed's output matches the NumPy reference"
ANY_BATCH = "build_fed's graph runs on a batch of another size"
LOADED = "build_loaded holds X in a variable after one fed initializer, and later runs need no feed"


@pytest.mark.parametrize("number, path, failing", [
    # Warming only the scores builds an executor for another fetch list than the one served.
    (5, WRONG / "lab5_warms_part.py", {"warm_up runs the same fetches and feeds as serve()",
                                       "first_request_seconds times the first serve() in a fresh session, cold and "
                                       "warmed"}),
    # A new graph per step hides the growth but rebuilds everything on every step.
    (6, WRONG / "lab6_graph_per_step.py", {"every step runs in the same session and graph"}),
    (6, WRONG / "lab6_no_finalize.py", {"the graph is finalized before the training steps run"}),
    # The data fixed, the validation loss still made in the loop: watch, run by the checker, names the growth.
    (7, ROOT / "tests" / "lab_variants" / "lab7_wrong_still_grows.py",
     {"watch names no graph growth (ops made after the first run, on 2 or more runs)"}),
    # Judging happens apart from the student's code: what it replaces in its own process judges nothing.
    (1, WRONG / "lab1_patches_numpy.py", {OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_replaces_the_checker.py", {SMALL, OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_patches_the_checks.py", {SMALL, OUTPUT, ANY_BATCH, LOADED}),
    # The child sends what TensorFlow serialized; the judge runs it on an X it draws itself: facts forged beside the
    # code, a replaced byte count or a replaced Session.run judge nothing, and X embedded answers for no other X.
    (1, WRONG / "lab1_forges_the_pipe.py", {SMALL, OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_patches_graph_bytes.py", {SMALL, OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_patches_session_run.py", {OUTPUT, ANY_BATCH, LOADED}),
    # An op that ends the process is not run; the judge counts the checks itself; build_fed's checks judge one build.
    (1, WRONG / "lab1_aborts_the_judge.py", {OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_announces_no_checks.py", {SMALL, OUTPUT, ANY_BATCH, LOADED}),
    (1, WRONG / "lab1_builds_another_graph_each_call.py", {OUTPUT, ANY_BATCH}),
])
def test_plausible_wrong_solutions_fail(number, path, failing):
    code, out = check(number, path)
    assert code == 1
    from tfgraphs.labs.checking import check_name, checks_of

    names = [check_name(c) for c in checks_of(number)]
    wrong = {n for n in names if any(line.startswith(f"WRONG {n}") for line in out.splitlines())}
    assert wrong == failing, out


def test_the_judge_makes_the_runs_of_the_sessions_a_check_body_opens():
    from tfgraphs.labs import sessions

    import tensorflow as tf

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float64, [None], name="x")
        a, b = tf.identity(x, name="a"), tf.identity(2 * x, name="b")
    observer = sessions.Observer()
    sessions.CHANNEL[0] = observer.answer
    try:
        with sessions.judged():
            with tf.compat.v1.Session(graph=graph) as sess:
                got = sess.run([b, a], {x: [1.0]})
                graph.finalize()
                kept = sess.run({"k": a}, {"x:0": [2.0]})
        assert tf.compat.v1.Session is not sessions.JudgedSession
        record = observer.record()
    finally:
        observer.close()
        sessions.CHANNEL[0] = None
    assert [list(v) for v in got] == [[2.0], [1.0]] and list(kept["k"]) == [2.0]
    assert record["sessions"] == 1
    assert [(r["fetched"], r["fed"], r["finalized"], r["ops"]) for r in record["runs"]] == [
        (["a:0", "b:0"], ["x:0"], False, 5), (["a:0"], ["x:0"], True, 5)]


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
    code, out = check(4, student, timeout_s=2)
    assert code == 1, out
    first, second = [line for line in out.splitlines() if line.startswith("      seen: ")]
    assert first.endswith("did not finish within 2 s (a loop that never ends?); stopped")
    assert "the process running your code ended with status 7" in second
    assert out.strip().endswith("lab 4: 0 of 2 checks passed")


def sheet(number):
    return (starter(number).parent / "README.md").read_text()


def test_sheets_state_every_value_their_checks_need():
    # Lab 1: the arrays' dtype and shapes, which a placeholder must match.
    assert all(s in sheet(1) for s in ("float64 array of shape `[50, 32, 32, 1]`", "`[3, 3, 1, 6]`",
                                       "tf.compat.v1.placeholder(tf.float64, [None, 32, 32, 1])"))
    # Lab 2: every field session_config must set, spelled as the check reads it.
    for field in ("rewrite_options.disable_meta_optimizer = True", "rewrite_options.constant_folding = "
                  "rewriter_config_pb2.RewriterConfig.OFF", "from tensorflow.core.protobuf import rewriter_config_pb2",
                  "optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0",
                  "optimizer_options.do_constant_folding = False"):
        assert field in sheet(2), field
    # Lab 7: the watch the checker runs, and how close main()'s result must be.
    assert all(s in sheet(7) for s in ("tfgraphs watch --min-bytes 100KiB", "within a relative 1e-6", "30 steps"))


def test_questions_say_when_a_run_cannot_decide_them():
    # Each lab whose questions compare measured times answers with the judge's verdict, "cannot tell" included; no
    # sheet judges a difference by a min-max range any more.
    for number in (2, 4, 5, 6, 7):
        questions = sheet(number).split("## Questions")[1]
        assert "cannot tell" in questions, number
    for number in sorted(LABS):
        assert "spread" not in sheet(number), number
    assert "spread" not in (ROOT / "tfgraphs" / "labs" / "course" / "README.md").read_text()
    # Lab 2's traces hold only what the executor ran: the sheet says the first run's excess is not in them.
    assert "is not in it" in sheet(2).split("\n6. ")[1].split("## Questions")[0]
    # No question of lab 2 has a preset as a trivial answer: the one removing most must be one switch alone.
    assert "which single switch" in sheet(2).lower()


def test_sheets_that_judge_a_difference_say_how_the_judge_decides():
    for text in (sheet(2), sheet(5), (ROOT / "tfgraphs" / "labs" / "course" / "README.md").read_text()):
        flat = " ".join(text.split())
        assert all(s in flat for s in ("rank test from `scipy.stats`", "95% interval", "`differs`",
                                       "`no difference beyond 25%`", "`cannot tell with n=...`", "4 samples a side"))
    # Lab 5 shows how to judge a run of one's own, and claims no outcome for it.
    assert "from tfgraphs.records.judge import judge; print(judge(cold, warm).says())" in sheet(5)


def try_it_cell(number):
    """The source of a starter's Try it cell: the one under the "## Try it" heading."""
    cells = starter(number).read_text().split("# %%")
    return cells[next(i for i, c in enumerate(cells) if "## Try it" in c) + 1]


def test_lab5_try_it_alternates_after_a_thrown_away_session_and_prints_the_judges_verdict(capsys):
    from tfgraphs.labs.checking import load

    cell = try_it_cell(5)
    assert "BATCH, ROUNDS = 200, 8" in cell
    calls = []
    solution = load(ROOT / "tests" / "lab_solutions" / "lab5.py")

    def recorded(w, batch, warm):
        calls.append(warm)
        return solution.first_request_seconds(w, batch, warm)

    namespace = {**vars(solution), "__name__": "__main__", "first_request_seconds": recorded}
    exec(cell.replace("BATCH, ROUNDS = 200, 8", "BATCH, ROUNDS = 2, 4"), namespace)
    # One session thrown away, then cold and warm in turn: the process's start-up falls on neither list.
    assert calls == [False] + [False, True] * 4
    lines = capsys.readouterr().out.splitlines()
    cold, warm = (eval(line.split(" = ", 1)[1]) for line in lines[:2])
    assert lines[0].startswith("COLD_MS = ") and lines[1].startswith("WARM_MS = ") and len(cold) == len(warm) == 4
    from tfgraphs.records.judge import judge

    assert lines[2] == f"first request, cold against warm: {judge(cold, warm).says()}"
    assert lines[2].split(": ", 1)[1].startswith(("differs (", "no difference beyond 25% (", "cannot tell with n="))


def test_checks_judged_on_one_build_build_it_once(tmp_path):
    from tfgraphs.labs.observed import BATCHES, LENGTHS

    calls = tmp_path / "calls"
    path = tmp_path / "lab4.py"
    path.write_text((ROOT / "tests" / "lab_solutions" / "lab4.py").read_text()
                    + f"\n\n_built = blocked_conv1d\n\n\ndef blocked_conv1d(x, filters, block_len):\n"
                      f"    with open({str(calls)!r}, 'a') as f:\n        f.write('.')\n"
                      f"    return _built(x, filters, block_len)\n")
    code, out = check(4, path)
    assert code == 0, out
    # Both checks are judged on the graphs the first one sent: the child builds each shape once.
    assert len(calls.read_text()) == len(BATCHES) * len(LENGTHS)
