"""Hostile input and faults: one line on stderr and exit 2, the inputs untouched, no process left behind."""

import _thread
import io
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import psutil
import pytest

from conftest import needs_private_network, run_main, running
from tfgraphs.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
LAB_HANG = Path(__file__).parent / "lab_solutions" / "wrong" / "lab1_hangs.py"


@pytest.fixture
def files(tmp_path):
    """An input graph, a folder, a FIFO, a link to a file, and saved documents broken in the ways a file can be."""
    graph = tmp_path / "in.pb"
    graph.write_bytes(b"the input graph")
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "out.json").write_text("{}")
    (tmp_path / "link.json").symlink_to(tmp_path / "out.json")
    (tmp_path / "outlink").symlink_to(tmp_path / "folder")
    doc = json.loads((FIXTURES / "compare.json").read_text())
    broken = {
        "no-graph-bytes": {**doc, "variants": [{k: v for k, v in doc["variants"][0].items() if k != "graph_bytes"}]},
        "runs-abc": {**doc, "variants": [{**doc["variants"][0], "runs_s": "abc"}]},
        "variants-hello": {**doc, "variants": "hello"},
        "machine-null": {**doc, "machine": None},
        "status-weird": {**doc, "variants": [{**doc["variants"][0], "status": "weird"}]},
        "bytes-text": {**doc, "variants": [{**doc["variants"][0], "graph_bytes": "many"}]},
    }
    for name, d in broken.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(d))
    (tmp_path / "deep.json").write_text("[" * 100_000)
    (tmp_path / "digits.json").write_text((FIXTURES / "compare.json").read_text().replace(
        '"batch": 20', '"batch": ' + "9" * 400, 1))
    return tmp_path


# (argv with {tmp} for the fixture folder, what the one line says)
CASES = [
    (["inspect", "{tmp}/in.pb", "--json", "{tmp}/in.pb"], "is the input"),
    (["inspect", "{tmp}/in.pb", "--strip-constants", "{tmp}/in.pb"], "is the input"),
    (["unembed", "{tmp}/in.pb", "-o", "{tmp}/model", "--json", "{tmp}/in.pb"], "is the input"),
    (["explain", "--graph", "{tmp}/in.pb", "--json", "{tmp}/in.pb"], "is the input"),
    (["compare", "--json", "/dev/null"], "is not a regular file"),
    (["compare", "--json", "/dev/full"], "is not a regular file"),
    (["compare", "--json", "{tmp}/fifo"], "is not a regular file"),
    (["compare", "--json", "{tmp}/folder"], "is a directory"),
    (["compare", "--json", "{tmp}/same.out", "--csv", "{tmp}/same.out"], "are the same file"),
    (["compare", "--json", "{tmp}/out.json", "--plot", "{tmp}/link.json"], "are the same file"),
    (["compare", "--timeout", "inf"], "must be a finite number"),
    (["lab", "check", "1", "--timeout", "inf"], "argument --timeout: 'inf' must be a finite number"),
    (["server", "--port", "99999"], "argument --port: 99999 must be at most 65,535"),
    (["report", "{tmp}/fifo"], "is not a regular file"),
    (["report", "/dev/zero"], "is not a regular file"),
    (["report", "{tmp}/folder"], "is not a regular file"),
    (["report", "{tmp}/deep.json"], "nested too deeply"),
    (["report", "{tmp}/digits.json"], "digits.json: config.batch is 99999999999999999999"),
    (["report", "{tmp}/no-graph-bytes.json"], "no-graph-bytes.json: row 'numpy' has no graph_bytes"),
    (["report", "{tmp}/runs-abc.json"], "runs-abc.json: Row.runs_s is 'abc', not a list"),
    (["report", "{tmp}/variants-hello.json"], "variants-hello.json: variants is 'hello', not a list"),
    (["report", "{tmp}/machine-null.json"], "machine-null.json: machine is null, not an object"),
    (["report", "{tmp}/bytes-text.json"], "bytes-text.json: Row.graph_bytes is 'many', not a whole number or null"),
    (["report", "{tmp}/status-weird.json"], "a row's status 'weird' is not one of ok, failed"),
    (["report", "{fix}/compare.json", "{tmp}/status-weird.json"], "a row's status 'weird'"),
    (["report", "{tmp}/missing.json"], "cannot read"),
    (["shapes", "--start", "100000000000"], "would take 1,200,000.0 GB"),
    (["shapes", "--channels", "100000000"], "would take 40,516.0 GB"),
    (["compare", "--runs", str(10**12)], "--runs 1000000000000 must be at most 1,000,000"),
    (["explain", "--trials", str(10**9)], "--trials 1000000000 must be at most 1,000"),
    (["pitfalls", "--steps", str(10**9)], "--steps 1000000000 must be at most 100,000"),
    (["explain", "--graph", "{tmp}/in.pb", "--int-high", "99999999999999999999"],
     "--int-high 99999999999999999999 must be at most 9,223,372,036,854,775,807"),
    (["lab", "start", "1", "/proc/tfgraphs-lab"], "cannot write lab 1 into /proc/tfgraphs-lab"),
    (["unembed", "{tmp}/in.pb", "-o", "{tmp}/outlink", "--replace"], "-o {tmp}/outlink is a symbolic link"),
    (["unembed", "{tmp}/in.pb", "-o", "/proc"], "-o /proc is a mount point"),
    (["unembed", "{tmp}/in.pb", "-o", "/proc/tfgraphs-model"], "cannot write /proc/tfgraphs-model: /proc"),
]

# Sizes past any machine: refused from the graph and the feeds before a worker starts.
GRAPH_CASES = [
    (["explain", "--graph", "{tmp}/cnn.pb", "--feed", "images=100000000000,8,8,1"],
     "cnn.pb's feeds (25,600,000,000,000 bytes) and its constants"),
    (["explain", "--graph", "{tmp}/splat.pb", "--fetch", "out"], "would take 160.0 GB"),
    (["unembed", "{tmp}/splat.pb", "-o", "{tmp}/model", "--fetch", "out"], "would take 160.0 GB"),
    (["explain", "--graph", "{tmp}/cnn.pb", "--feed", "images=2,8,8,1", "--fetch", "logits:7"],
     "unknown fetch 'logits:7': logits (Identity) has 1 output, numbered from 0"),
    (["unembed", "{tmp}/saved", "-o", "{tmp}/saved-out"], "holds variables but no checkpoint to restore them from"),
    (["explain", "--graph", "{tmp}/saved", "--feed", "in=2,128"], "variables/variables.index is missing"),
]


def snapshot(folder):
    """Every entry of folder with its kind and bytes, and /dev/null's kind: what a refusal must leave as it was."""
    found = {p.name: (stat.S_IFMT(p.lstat().st_mode), p.read_bytes() if p.is_file() and not p.is_symlink() else None)
             for p in folder.iterdir()}
    return found, stat.S_ISCHR(os.stat("/dev/null").st_mode)


def splat(path):
    """93 bytes of GraphDef whose one Const, a single value repeated, expands to 160 GB."""
    from tensorflow.core.framework import graph_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    big = graph.node.add(name="big", op="Const")
    big.attr["dtype"].type = types_pb2.DT_FLOAT
    value = big.attr["value"].tensor
    value.dtype = types_pb2.DT_FLOAT
    value.tensor_shape.dim.add().size, value.tensor_shape.dim.add().size = 40_000, 1_000_000
    value.float_val.append(1.0)
    out = graph.node.add(name="out", op="Identity", input=["big"])
    out.attr["T"].type = types_pb2.DT_FLOAT
    path.write_bytes(graph.SerializeToString())


@pytest.mark.parametrize("argv, said", GRAPH_CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_a_graph_past_the_machine_is_refused_before_any_worker(files, capsys, argv, said):
    import owngraphs

    owngraphs.frozen_cnn(files / "cnn.pb")
    splat(files / "splat.pb")
    owngraphs.saved_model(files / "saved")
    shutil.rmtree(files / "saved" / "variables")   # a SavedModel copied without its checkpoint
    test_bad_input_gets_one_line_exit_2_and_changes_nothing(files, capsys, argv, said)


@pytest.mark.parametrize("argv, said", CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_bad_input_gets_one_line_exit_2_and_changes_nothing(files, capsys, argv, said):
    before, children = snapshot(files), len(psutil.Process().children(recursive=True))
    try:
        code = main([a.format(tmp=files, fix=FIXTURES) for a in argv])
    except SystemExit as exc:   # argparse refuses a bad number itself
        code = exc.code
    _, err = capsys.readouterr()
    assert (code, len(err.splitlines())) == (2, 1), err
    assert said.format(tmp=files) in err
    assert snapshot(files) == before
    assert len(psutil.Process().children(recursive=True)) == children


@pytest.mark.parametrize("bad", [2, None, ["a.json"], b"a.json"])
def test_the_api_takes_only_a_path_and_never_closes_a_descriptor(bad):
    import tfgraphs
    from tfgraphs.errors import UsageError

    with pytest.raises(UsageError, match="takes the path of a saved document"):
        tfgraphs.report(bad)
    os.fstat(2)   # stderr is still open


def test_a_port_in_use_is_refused_in_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        code = main(["server", "--port", str(taken.getsockname()[1])])
    _, err = capsys.readouterr()
    assert code == 2 and len(err.splitlines()) == 1 and "cannot be served" in err


def _gone_within(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def _children_once_started(proc, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        kids = psutil.Process(proc.pid).children(recursive=True)
        if kids:
            return [k.pid for k in kids]
        time.sleep(0.1)
    raise AssertionError("the command started no child process")


# A local compare killed while its forked worker measures is test_workers' (it waits for the worker itself).
@pytest.mark.parametrize("argv, sig", [
    pytest.param(["server"], signal.SIGKILL, marks=needs_private_network),
    pytest.param(["compare", "--target", "local", "--no-baseline", "--batch", "10", "--runs", "1000000",
                  "--variants", "placeholder", "--quiet"], signal.SIGKILL, marks=needs_private_network),
    (["lab", "check", "1", str(LAB_HANG)], signal.SIGTERM),
], ids=["server", "compare-target-local", "lab-check-sigterm"])
def test_the_parents_end_leaves_no_child_alive(argv, sig, own_servers):
    proc = subprocess.Popen([sys.executable, "-m", "tfgraphs", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        kids = _children_once_started(proc)
    finally:
        proc.send_signal(sig)
        proc.wait()
    assert _gone_within(kids, 5) == []


@pytest.fixture
def immutable(tmp_path):
    """A file the kernel refuses to change, even for root (chattr +i); skipped where the file system has no flag."""
    path = tmp_path / "immutable.json"
    path.write_text("{}")
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    yield path
    subprocess.run(["chattr", "-i", str(path)], check=True)


def test_an_immutable_output_is_refused_before_the_run(immutable, capsys):
    code = main(["compare", "--json", str(immutable)])
    _, err = capsys.readouterr()
    assert code == 2 and err == f"tfgraphs: cannot write {immutable}: Operation not permitted\n"


def test_server_says_where_tensorflow_listens():
    from tfgraphs.cli import build_parser

    text = " ".join(build_parser("tfgraphs")._subparsers._group_actions[0].choices["server"].format_help().split())
    assert "listens on every interface of this machine, not only 127.0.0.1" in text
    assert "`compare --target local`" in text


def test_a_full_disk_is_one_line_and_the_old_file_stays_whole(tmp_path):
    import errno

    from tfgraphs.errors import UsageError
    from tfgraphs.fileio import write_atomic

    old = tmp_path / "out.json"
    old.write_text("the old report")

    def full(f):
        f.write("half a report")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(UsageError, match=f"^cannot write {old}: No space left on device$"):
        write_atomic(old, full)
    assert old.read_text() == "the old report" and sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


@pytest.mark.parametrize("target, given, used", [("grpc://127.0.0.1:1", None, 600.0), ("local", 5, 5.0),
                                                ("", None, None)])
def test_a_remote_run_gets_a_deadline_unless_one_is_given(target, given, used):
    # A server that accepts the connection and never answers would otherwise hang the run forever.
    from types import SimpleNamespace

    from tfgraphs.api.commands import Command
    from tfgraphs.spec.options import REMOTE_TIMEOUT_S
    from tfgraphs.jobs.runner import Plan
    from fakes import results

    seen = {}

    def run(config, plan, progress, timeout=None):
        seen["timeout"] = timeout
        return results("compare", {}, ())

    job = SimpleNamespace(plan=lambda config: Plan({}, (), workers=1), run=run)
    Command.measure(None, job, SimpleNamespace(target=target), quiet=True, timeout=given)
    assert seen["timeout"] == used and REMOTE_TIMEOUT_S == 600.0


def _runs(proc, argument):
    """Whether proc, not yet ended, has argument in its command line."""
    try:
        return proc.status() != psutil.STATUS_ZOMBIE and argument in proc.cmdline()
    except psutil.Error:
        return False


def test_an_interrupted_check_ends_its_child():
    # A notebook's "interrupt kernel" is a KeyboardInterrupt in a process that lives on: the child must end anyway.
    from tfgraphs.labs.checking import check_lab

    def children():
        """The child judging LAB_HANG: forked from the session's server, or this process's own if it started fresh."""
        forked = [pid for pid, (argv, _) in running().items() if str(LAB_HANG) in argv]
        return forked + [p.pid for p in psutil.Process().children() if _runs(p, str(LAB_HANG))]

    def interrupt():
        deadline = time.monotonic() + 60
        while not children() and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.extend(children())
        time.sleep(0.5)   # the child is judged: its file loaded, a check running
        _thread.interrupt_main()   # as the kernel's SIGINT would, in the thread running the cell

    seen = []
    # A kernel runs a cell with Python's own handler for SIGINT, whatever this process was started with.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Thread(target=interrupt, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            check_lab(1, str(LAB_HANG), stream=io.StringIO(), timeout_s=120)
    finally:
        signal.signal(signal.SIGINT, handler)
    deadline = time.monotonic() + 10
    while children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert seen and children() == []


def test_a_server_that_accepts_and_never_answers_becomes_a_failed_row(tmp_path):
    # The TCP connect succeeds, so --connect-timeout passes it; the run's own deadline ends the worker.
    path = tmp_path / "out.json"
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        proc = subprocess.run([sys.executable, "-m", "tfgraphs", "compare", "--target",
                               f"grpc://127.0.0.1:{silent.getsockname()[1]}", "--no-baseline", "--variants",
                               "placeholder", "--batch", "10", "--runs", "2", "--trials", "1", "--timeout", "3",
                               "--json", str(path), "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(path.read_text())
    assert [(r["status"], r["error"]) for r in doc["variants"]] == [("failed", "worker killed after the 3 s timeout")]


def test_a_notebook_whose_cells_have_no_id_is_checked_without_a_warning(tmp_path, capfd):
    notebook = json.loads((Path(__file__).parent.parent / "tfgraphs" / "labs" / "course" / "1-feed" /
                           "starter.ipynb").read_text())
    notebook["nbformat_minor"] = 5
    for cell in notebook["cells"]:
        cell.pop("id", None)   # as older tools save them
    path = tmp_path / "noid.ipynb"
    path.write_text(json.dumps(notebook))
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        proc = run_main(capfd, "lab", "check", 1, path)
    # What a fresh interpreter's default filters would print: every warning but these kinds.
    hidden = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
    assert [str(w.message) for w in warned if not issubclass(w.category, hidden)] == []
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout.splitlines()[-1] == "lab 1: 0 of 4 checks passed"


def test_a_reader_that_leaves_early_ends_the_command_quietly():
    # `tfgraphs report X | head -1`: the reader is gone before the page is written.
    proc = subprocess.Popen([sys.executable, "-m", "tfgraphs", "report", "--verbose", str(FIXTURES / "compare.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141 and err == ""
