"""The fork server the tests start their workers from gives a child what a fresh `python -m MODULE` would get."""

import json
import os
import signal
import subprocess
import sys
import time

import forkserver
import pytest

# The first server's environment: TensorFlow's C++ start-up lines held back, as the runner asks.
WORKERS = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}


def probe(*args, env=WORKERS, **kwargs):
    return forkserver.Forked(forkserver.server(env), [sys.executable, "-m", "probe", *args], env=env, **kwargs)


def test_a_forked_child_runs_its_module_with_the_requesters_argv_folder_environment_and_descriptors(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proc = probe("7", "--flag", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                 env={**WORKERS, "PROBE_MARK": "m1"})
    proc.stdin.write("a line in\n")
    proc.stdin.close()
    seen = json.loads(proc.stdout.readline())
    assert proc.wait(60) == 7 and proc.returncode == 7
    assert seen == {"argv": ["7", "--flag"], "cwd": str(tmp_path), "mark": "m1", "pgid": os.getpgid(0),
                    "ppid": seen["ppid"], "stdin": "a line in", "tensorflow": True, "name": "__main__"}
    assert seen["ppid"] != os.getpid()   # the server's child, not this process's
    assert proc.stderr.read() == "to stderr\n"


@pytest.mark.parametrize("imports", [True, False])
def test_a_watched_script_finds_tensorflow_only_once_it_imports_it_and_the_watch_starts_then(tmp_path, imports):
    script = tmp_path / "s.py"
    script.write_text("import sys\nprint('tensorflow' in sys.modules)\n"
                      + ("import tensorflow as tf\nprint(sys.modules['tensorflow'] is tf, tf.__spec__.name)\n"
                         "print(tf.constant(2.0).numpy())\n" if imports else ""))
    out = tmp_path / "w.json"
    proc = forkserver.Forked(forkserver.server(WORKERS), [sys.executable, "-m", "tfgraphs.worker.watch", "--out",
                             str(out), "--min-bytes", "1000", "--", str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=WORKERS)
    printed = proc.stdout.read()
    assert proc.wait(60) == 0, proc.stderr.read()
    assert printed == ("False\nTrue tensorflow\n2.0\n" if imports else "False\n")
    doc = json.loads(out.read_text())
    assert (doc["touched_tensorflow"], doc["status"]) == (imports, "ok")
    assert (doc["tf_version"] is not None) == imports


def test_a_killed_child_reports_its_signal_and_is_listed_until_it_ends():
    proc = probe("sleep", stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env={**WORKERS, "PROBE_MARK": "m2"})
    proc.stdout.readline()
    assert proc.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(0.1)
    argv, env = forkserver.running()[proc.pid]
    assert argv == [sys.executable, "-m", "probe", "sleep"] and env["PROBE_MARK"] == "m2"
    proc.kill()
    assert proc.wait(30) == -signal.SIGKILL
    proc.kill()   # once more: the child is gone, and no other process is signalled
    assert proc.pid not in forkserver.running()


def test_a_requester_that_ends_ends_its_child():
    script = ("import forkserver, os, subprocess, sys\n"
              "env = {**os.environ, 'TF_CPP_MIN_LOG_LEVEL': '2'}\n"
              "p = forkserver.Forked(forkserver.server(env), [sys.executable, '-m', 'probe', 'sleep'], env=env,\n"
              "                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)\n"
              "p.stdout.readline()\n"
              "print(p.pid, flush=True)\n"
              "os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pid = int(out.stdout)
    deadline = time.monotonic() + 10
    while pid in forkserver.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid not in forkserver.running()


@pytest.mark.parametrize("argv, options, forked", [
    (["-m", "tfgraphs.worker.seed", "--variant", "constant"], {"stdout": 1, "stderr": -1, "env": {}}, True),
    (["-m", "tfgraphs.labs.checking", "1", "lab1.py", "0"], {"stdout": -1, "stderr": -1, "text": True}, True),
    # The command line never imports TensorFlow; a watched script is forked, TensorFlow hidden until it imports it.
    (["-m", "tfgraphs.worker.watch", "--out", "w.json", "--", "s.py"], {}, True),
    (["-m", "tfgraphs", "watch", "s.py"], {}, False),
    (["-c", "print(1)"], {}, False),
    (["-m", "tfgraphs.worker.seed"], {"cwd": "/"}, False),   # an option the fork does not take
])
def test_only_workers_started_as_a_fresh_interpreter_would_be_are_forked(argv, options, forked):
    assert forkserver.forks([sys.executable, *argv], options) is forked
    assert not forkserver.forks(["/usr/bin/python3.0", *argv], options)


def test_a_test_that_asks_for_fresh_processes_forks_none(fresh_processes):
    started = []
    forkserver.start([sys.executable, "-m", "tfgraphs.worker.seed"], lambda argv, **kwargs: started.append(argv))
    assert started == [[sys.executable, "-m", "tfgraphs.worker.seed"]]


def test_the_notebooks_kernel_is_the_forked_one():
    from jupyter_client.kernelspec import KernelSpecManager

    argv = KernelSpecManager().get_kernel_spec("python3").argv
    assert argv == [sys.executable, os.path.join(os.path.dirname(forkserver.__file__), "kernel.py"), "-f",
                    "{connection_file}"]
