"""Hostile inputs past the limits: old notebooks, saved runs of extreme numbers, batches of 10^15, graphs nested past
the parser or expanding past memory, scripts that hide what they start, signals, memory limits and full disks. Each
ends in one line and the conventional exit status, with nothing half-written or left running."""

import errno
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import psutil
import pytest

from conftest import run_main
from tfgraphs import fileio, labs, processes
from tfgraphs.errors import UsageError
from tfgraphs.cli import main
from tfgraphs.graphdef import consts
from tfgraphs.labs.checking import OVER_MEMORY
from tfgraphs.labs.grading import Submission, fill

FIXTURES = Path(__file__).parent / "fixtures"
LAB1 = Path(__file__).parent / "lab_solutions" / "lab1.py"


def one_line(proc, status=2):
    """The single stderr line of a command that had to end with status."""
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    return lines[0]


# Notebooks.

def notebook(path, cells, nbformat=4):
    """Write a notebook holding cells (a v3 notebook keeps them in a worksheet)."""
    doc = ({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells} if nbformat == 4 else
           {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": cells}]})
    path.write_text(json.dumps(doc))
    return path


def code_cell(source):
    return {"cell_type": "code", "id": "c1", "metadata": {}, "outputs": [], "execution_count": None, "source": source}


@pytest.mark.parametrize("cells, nbformat, said", [
    ([{"cell_type": "code", "input": "x = 1", "language": "python", "outputs": []}], 3,
     "is a notebook of nbformat 3; tfgraphs reads nbformat 4 (convert it: jupyter nbconvert --to notebook --inplace"),
    ([code_cell(None)], 4, "cell 1's source is null, not text or a list of lines"),
    ([code_cell(7)], 4, "cell 1's source is a number, not text or a list of lines"),
], ids=["nbformat-3", "null-source", "number-source"])
def test_a_notebook_jupytext_cannot_write_is_one_line(tmp_path, capfd, cells, nbformat, said):
    pytest.importorskip("jupytext")
    path = notebook(tmp_path / "lab1.ipynb", cells, nbformat)
    assert said in one_line(run_main(capfd, "lab", "check", "1", path))


# Saved runs.

def saved(tmp_path, change, name="compare"):
    """A fixture document, changed by change(doc), saved in tmp_path."""
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    change(doc)
    path = tmp_path / f"{name}-changed.json"
    path.write_text(json.dumps(doc))
    return path


def every_run(key, value):
    """change(doc): key set to value(old) in every row and trial."""
    def change(doc):
        for row in doc["variants"]:
            for record in (row, *row["trials"]):
                record[key] = value(record[key])
    return change


@pytest.mark.parametrize("change, said", [
    (every_run("runs_s", lambda runs: [1e308] * len(runs)),
     "variants[0].runs_s[0] is 1e+308, larger than any figure a run records (2**63 or more)"),
    (every_run("first_run_s", lambda _: 5e-324),
     "variants[0].first_run_s is 5e-324, a time below 1e-09 s, finer than the clock that measures it"),
    (every_run("first_run_s", lambda _: 1e308), "variants[0].first_run_s is 1e+308, larger than any figure"),
    (lambda doc: doc["variants"].__setitem__(0, None), "a Row record is null, not an object"),
    (lambda doc: doc["variants"][0].__setitem__("trials", 5), "Row.trials is 5, not a list"),
    (lambda doc: doc["variants"][0]["trials"].__setitem__(0, "x"), "a Measurement record is a string, not an object"),
    (lambda doc: doc["variants"][0]["runs_s"].__setitem__(0, None), "variants[0].runs_s[0] is null, not a number"),
    (lambda doc: doc["variants"][0]["rss_bytes"].__setitem__("data", [1]),
     "variants[0].rss_bytes.data is a list, not a number"),
], ids=["later-1e308", "first-5e-324", "first-1e308", "row-null", "trials-number", "trial-text", "run-null",
        "rss-list"])
def test_a_saved_run_past_what_a_run_records_is_refused_naming_the_field(tmp_path, capfd, change, said):
    path = saved(tmp_path, change)
    line = one_line(run_main(capfd, "report", path))
    assert said in line and "object has no attribute" not in line and "not supported between" not in line
    # Beside a good document too: the pair is compared only once each is read whole.
    assert said in one_line(run_main(capfd, "report", FIXTURES / "compare.json", path))


@pytest.mark.parametrize("change, said", [
    (lambda doc: doc["attribution"].__setitem__(0, None), "an Attribution record is null, not an object"),
    (lambda doc: doc.__setitem__("single_thread", "x"), "a SingleThread record is a string, not an object"),
    (lambda doc: doc["runs"][0].__setitem__("top_ops", [None]), "runs[0].top_ops[0] is null, not an object"),
], ids=["attribution-null", "single-thread-text", "top-op-null"])
def test_explains_sections_are_read_as_records(tmp_path, capfd, change, said):
    assert said in one_line(run_main(capfd, "report", saved(tmp_path, change, "explain")))


def test_a_document_that_fills_memory_while_parsed_is_one_line(tmp_path):
    """Under a memory limit, JSON of many empty objects (24 bytes of objects for each of its bytes) runs out."""
    path = tmp_path / "objects.json"
    path.write_text("[" + ",".join(["{}"] * 10_000_000) + "]")   # 30 MB of text, about 720 MB as objects
    proc = limited(["report", path], limit_kib=600_000)
    assert one_line(proc) == (f"tfgraphs: {path}: ran out of memory reading its {path.stat().st_size:,} bytes of "
                              f"JSON; free some, or raise this process's limit (ulimit -v)")


# Numbers.

@pytest.mark.parametrize("argv, flag", [
    (["compare", "--batch", "1000000000000000", "--variants", "placeholder"], "--batch 1000000000000000"),
    (["explain", "--batch", "1000000000000000"], "--batch 1000000000000000"),
    (["pitfalls", "--batch", "1000000000000000"], "--batch 1000000000000000"),
    (["sweep", "--batches", "1000000000000000,2000000000000000"], "--batches 1000000000000000"),
], ids=["compare", "explain", "pitfalls", "sweep"])
def test_a_batch_of_ten_to_the_fifteen_is_refused_before_any_arithmetic(capfd, argv, flag):
    assert one_line(run_main(capfd, *argv)) == f"tfgraphs: {flag} must be at most 1,000,000,000,000"


# Graphs.

def nested_funcs(depth):
    """An AttrValue holding depth NameAttrLists, each inside the one before."""
    return "i: 1" if depth == 0 else 'func { name: "f" attr { key: "a" value { ' + nested_funcs(depth - 1) + " } } }"


@pytest.mark.parametrize("command", ["inspect {path}", "explain --graph {path}", "unembed {path} -o {tmp}/out"],
                         ids=["inspect", "explain", "unembed"])
def test_a_text_graph_nested_past_the_parser_is_one_line(tmp_path, capfd, command):
    path = tmp_path / "deep.pbtxt"
    path.write_text('node { name: "c" op: "NoOp" attr { key: "deep" value { ' + nested_funcs(150) + " } } }\n")
    argv = command.format(path=path, tmp=tmp_path).split()
    assert one_line(run_main(capfd, *argv)) == (f"tfgraphs: {path} is not a GraphDef: not valid text protobuf (its "
                                                f"messages nest deeper than the parser follows)")


def test_a_text_graph_the_text_parser_follows_is_refused_past_the_binary_depth(tmp_path, capfd):
    """40 levels (124 nested messages) parse as text but not back as binary, the form TensorFlow reads; 30 do."""
    path = tmp_path / "deep.pbtxt"
    path.write_text('node { name: "c" op: "NoOp" attr { key: "deep" value { ' + nested_funcs(40) + " } } }\n")
    assert one_line(run_main(capfd, "inspect", path)) == (f"tfgraphs: {path} is not a GraphDef: not valid text "
                                                          "protobuf (its messages nest deeper than the parser follows)")
    path.write_text('node { name: "c" op: "NoOp" attr { key: "deep" value { ' + nested_funcs(30) + " } } }\n")
    assert run_main(capfd, "inspect", path).returncode == 0


STRING_GRAPH = ('node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" '
                'value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1000000000 } } string_val: "%s" } } } }\n'
                'node { name: "i" op: "Identity" input: "s" attr { key: "T" value { type: DT_STRING } } }\n')


def test_a_string_const_is_counted_as_tensorflow_expands_it(tmp_path, capfd):
    """One 100-byte string repeated 10^9 times: a 24-byte tstring each, and a copy of the text on the heap each."""
    path = tmp_path / "strings.pbtxt"
    path.write_text(STRING_GRAPH % ("x" * 100))
    shown = run_main(capfd, "inspect", path)
    assert shown.returncode == 0 and "const bytes        124,000,000,000" in shown.stdout
    line = one_line(run_main(capfd, "explain", "--graph", path, "--fetch", "i"))
    assert "its constants (124,000,000,000 bytes, expanded) would take 124.0 GB but" in line


def test_short_strings_live_inside_their_tstrings():
    tf = pytest.importorskip("tensorflow")
    short = tf.make_tensor_proto(["ab", "c" * 22, "d" * 23])
    assert consts.tensor_bytes(short) == 3 * consts.TSTRING_BYTES + 23
    elided = tf.make_tensor_proto("e" * 30, shape=[4])   # one value listed, TensorFlow repeats it three times
    assert consts.tensor_bytes(elided) == 4 * (consts.TSTRING_BYTES + 30)


# watch.

def test_watch_ends_and_names_a_child_in_a_session_of_its_own(tmp_path, monkeypatch, capfd, own_servers):
    """The script starts fresh, a child of this process, which adopts the orphan it leaves in a session of its own."""
    (tmp_path / "daemon.py").write_text(
        "import subprocess\n"
        "open('sleep.pid', 'w').write(str(subprocess.Popen(['sleep', '30'], start_new_session=True).pid))\n")
    monkeypatch.chdir(tmp_path)
    watched = run_main(capfd, "watch", "--quiet", "daemon.py")
    pid = int((tmp_path / "sleep.pid").read_text())
    assert watched.returncode == 0
    assert f"tfgraphs watch: ended 1 process the script left running (pid {pid}: sleep)" in watched.stderr
    assert not psutil.pid_exists(pid)


@pytest.mark.parametrize("hook", ["print('hooked', t.__name__, v)", "raise KeyError('in the hook')"],
                         ids=["prints", "raises"])
def test_watch_honours_the_scripts_excepthook(tmp_path, monkeypatch, capfd, hook):
    (tmp_path / "hooked.py").write_text(f"import sys\ndef hook(t, v, tb):\n    {hook}\nsys.excepthook = hook\n"
                                        f"raise ValueError('boom')\n")
    monkeypatch.chdir(tmp_path)
    python = subprocess.run([sys.executable, "hooked.py"], capture_output=True, text=True)
    watched = run_main(capfd, "watch", "--quiet", "hooked.py")
    assert watched.returncode == python.returncode == 1
    assert watched.stdout.startswith(python.stdout) and python.stderr in watched.stderr


# Signals.

@pytest.mark.parametrize("sig, own_server", [(signal.SIGTERM, False), (signal.SIGHUP, True)],
                         ids=["SIGTERM", "SIGHUP-own-server"])
def test_a_signal_to_the_group_ends_compare_in_one_line(sig, own_server):
    """Sent to the whole group once the first worker started, as a terminal or a job control sends it; a command
    with a server of its own, as a user's has, removes its folder too."""
    env = {k: v for k, v in os.environ.items() if not own_server or k != processes.SERVERS}
    tmp = env["TMPDIR"] = tempfile.mkdtemp(dir="/tmp")   # short: the server's socket path must fit AF_UNIX's 108 bytes
    proc = subprocess.Popen([sys.executable, "-m", "tfgraphs", "compare", "--batch", "20", "--runs", "2", "--trials",
                             "2", "--variants", "numpy,placeholder"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    said = []
    for line in proc.stderr:
        said.append(line)
        if line.startswith("[1/"):
            os.killpg(proc.pid, sig)
            break
    said += proc.stderr.readlines()
    assert proc.wait(60) == 128 + sig, said
    assert said[-1] == f"tfgraphs: ended by {sig.name}\n", said
    assert not [w for w in said if "Error" in w]
    assert os.listdir(tmp) == []
    os.rmdir(tmp)


# Memory limits and full disks.

def limited(argv, limit_kib=300_000, env=None):
    """`tfgraphs ARGV` under `ulimit -v limit_kib`."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_kib * 1024, limit_kib * 1024))
    return subprocess.run([sys.executable, "-m", "tfgraphs", *map(str, argv)], capture_output=True, text=True,
                          preexec_fn=limit, env=env, timeout=120)


@pytest.mark.parametrize("argv", [["report", FIXTURES / "compare.json"], ["lab", "check", "1", LAB1]],
                         ids=["report", "lab-check"])
def test_under_a_small_memory_limit_a_command_ends_in_one_line(tmp_path, argv):
    proc = limited(argv, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert one_line(proc).startswith("tfgraphs: ran out of memory under this process's limit of 307,200,000 bytes "
                                     "(ulimit -v)")
    assert os.listdir(tmp_path) == []


def test_an_error_is_out_of_memory_only_once_the_address_space_reached_its_limit(monkeypatch, capfd):
    """A library's allocation that failed at the limit may raise anything (SystemError "error return without exception
    set" from a C extension): this process's VmPeak at its limit is what says memory ran out."""
    from tfgraphs import cli
    from tfgraphs.cli import subcommands

    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmPeak:")) * 1024
    for limit, reached in ((resource.RLIM_INFINITY, False), (2 * peak, False), (peak, True)):
        monkeypatch.setattr(cli.resource, "getrlimit", lambda which, limit=limit: (limit, resource.RLIM_INFINITY))
        assert cli.reached_memory_limit() is reached

    def fails(path):
        raise SystemError("error return without exception set")
    monkeypatch.setattr(subcommands, "report", fails)
    assert one_line(run_main(capfd, "report", FIXTURES / "compare.json")) == (
        f"tfgraphs: ran out of memory under this process's limit of {peak:,} bytes (ulimit -v) (SystemError); free "
        f"some, or raise the limit")
    monkeypatch.setattr(cli.resource, "getrlimit", lambda which: (2 * peak, resource.RLIM_INFINITY))
    internal = run_main(capfd, "report", FIXTURES / "compare.json")
    assert internal.returncode == 1 and "internal error: SystemError" in internal.stderr


class FillsUp:
    """A file whose second write, across all of them, writes a part and then finds the disk full."""

    writes = 0

    def __init__(self, f):
        self.f = f

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()

    def write(self, data):
        FillsUp.writes += 1
        if FillsUp.writes == 2:
            self.f.write(data[:10])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self.f.write(data)


def test_a_server_that_cannot_load_tensorflow_leaves_no_folder():
    """Under 1 GB the server's import of TensorFlow fails: the worker's row says so, and the server's folder goes."""
    env = {k: v for k, v in os.environ.items() if k != processes.SERVERS}
    tmp = env["TMPDIR"] = tempfile.mkdtemp(dir="/tmp")   # short: the server's socket path must fit AF_UNIX's 108 bytes
    proc = limited(["compare", "--batch", "20", "--runs", "2", "--variants", "numpy", "--trials", "1", "--quiet"],
                   limit_kib=1_000_000, env=env)
    assert proc.returncode == 1 and "FAILED numpy: ImportError" in proc.stdout
    assert os.listdir(tmp) == []
    os.rmdir(tmp)


def test_lab_start_on_a_full_disk_leaves_no_folder(tmp_path, monkeypatch, capfd):
    real = os.fdopen
    monkeypatch.setattr(labs.os, "fdopen", lambda *args, **kwargs: FillsUp(real(*args, **kwargs)))
    target = tmp_path / "new" / "lab7"
    assert one_line(run_main(capfd, "lab", "start", "7", target)) == (
        f"tfgraphs: cannot write lab 7 into {target}: No space left on device")
    assert os.listdir(tmp_path) == []
    monkeypatch.undo()
    assert run_main(capfd, "lab", "start", "7", target).returncode == 0   # the retry finds nothing in its way
    assert sorted(os.listdir(target)) == sorted(labs.COPIED)


def test_unembed_on_a_full_disk_is_one_line(tmp_path, capfd):
    tf = pytest.importorskip("tensorflow")
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk]).returncode:
        pytest.skip("a full disk is a 64 KiB tmpfs, which only root mounts")
    try:
        with tf.Graph().as_default() as g:
            tf.identity(tf.constant(np.arange(100_000, dtype=np.float32)), name="y")   # 400 kB: past the disk
        graph = tmp_path / "big.pb"
        graph.write_bytes(g.as_graph_def().SerializeToString())
        assert one_line(run_main(capfd, "unembed", graph, "-o", disk / "model", "--fetch", "y",
                                 "--min-bytes", "1000", "--quiet")) == (
            f"tfgraphs: cannot write {disk}/model: No space left on device (nothing was written)")
        assert os.listdir(disk) == []
    finally:
        subprocess.run(["umount", disk])


def test_an_output_that_is_a_link_is_written_through(tmp_path):
    (tmp_path / "target.json").write_text("old")
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    fileio.write_doc({"new": 1}, str(tmp_path / "link.json"))
    assert os.path.islink(tmp_path / "link.json")
    assert json.loads((tmp_path / "target.json").read_text()) == {"new": 1}
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    with pytest.raises(UsageError, match="which is not a regular file"):
        fileio.write_doc({}, str(tmp_path / "to-fifo"))
    assert os.path.islink(tmp_path / "to-fifo")


def test_a_check_whose_code_holds_more_memory_than_allowed_is_stopped(tmp_path, capsys):
    hog = tmp_path / "lab1.py"
    hog.write_text("import time\nimport numpy as np\nX = np.ones(2**30 // 8)\ntime.sleep(60)\n")   # 1 GiB, held
    assert main(["lab", "check", "1", str(hog), "--memory", "1GiB", "--timeout", "30"]) == 1
    out = capsys.readouterr().out
    assert "more than the 1,073,741,824 a check may hold (--memory); stopped" in out and "its processes held" in out


@pytest.mark.parametrize("argv, said", [
    (["lab", "check", "1", "x.py", "--memory", "1000TB"], "--memory 1000000.0 GB is more than this machine has"),
    (["lab", "grade", "1", "x.py", "--memory", "0"], "argument --memory"),
])
def test_a_memory_limit_past_the_machine_is_refused(tmp_path, monkeypatch, capfd, argv, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("X = 1\n")
    assert said in one_line(run_main(capfd, *argv))


def test_a_judge_stopped_for_memory_is_a_memory_row():
    sub = Submission("lab1.py", 1, "lab1.py")
    record = {"checks": 4, "outcomes": [{"name": "loading your file", "passed": False, "hint": "",
                                         "detail": f"{OVER_MEMORY} 5.0 GB, more than the 4.3 GB a check may hold"}]}
    fill(sub, 0, json.dumps(record), [], 60)
    assert (sub.status, sub.passed, sub.checks) == ("memory", 0, 4) and sub.reason.startswith("loading your file: ")
