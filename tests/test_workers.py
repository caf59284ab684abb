"""Workers forked from a server that imported TensorFlow once get what a fresh `python -m MODULE` gets, and end with
whatever started them."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import replace

import psutil
import pytest

from conftest import WORKERS, interruptible, run_main, running
from tfgraphs import processes

SEED = ["-m", "tfgraphs.worker.network", "--variant", "placeholder", "--batch", "10"]


def probe(*args, env=WORKERS, **kwargs):
    """The probe module forked from the session's server (processes.start forks only tfgraphs' workers)."""
    server = os.path.join(os.environ[processes.SERVERS], processes.key(env) + ".sock")
    return processes.Forked(processes.connect(server), [sys.executable, "-m", "probe", *args], env=env, **kwargs)


def test_a_forked_child_runs_its_module_with_the_requesters_argv_folder_environment_and_descriptors(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    proc = probe("7", "--flag", stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                 env={**WORKERS, "PROBE_MARK": "m1"})
    proc.stdin.write("a line in\n")
    proc.stdin.close()
    seen = json.loads(proc.stdout.readline())
    assert proc.wait(60) == 7 and proc.returncode == 7 and proc.started == "forked"
    assert seen == {**seen, "argv": ["7", "--flag"], "cwd": str(tmp_path), "mark": "m1", "pgid": os.getpgid(0),
                    "stdin": "a line in", "tensorflow": True, "name": "__main__"}
    assert seen["ppid"] != os.getpid()   # the server's child, not this process's
    assert proc.stderr.read() == "to stderr\n"


def test_a_killed_child_reports_its_signal_and_is_listed_until_it_ends():
    proc = probe("sleep", stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env={**WORKERS, "PROBE_MARK": "m2"})
    proc.stdout.readline()
    assert proc.poll() is None
    with pytest.raises(subprocess.TimeoutExpired):
        proc.wait(0.1)
    argv, env = running()[proc.pid]
    assert argv == [sys.executable, "-m", "probe", "sleep"] and env["PROBE_MARK"] == "m2"
    proc.kill()
    assert proc.wait(30) == -signal.SIGKILL
    proc.kill()   # once more: the child is gone, and no other process is signalled
    assert proc.pid not in running()


def test_a_requester_that_ends_ends_its_child():
    script = ("import os, subprocess, sys\n"
              "from tfgraphs import processes\n"
              "env = {**os.environ, 'TF_CPP_MIN_LOG_LEVEL': '2'}\n"
              "path = os.path.join(os.environ[processes.SERVERS], processes.key(env) + '.sock')\n"
              "p = processes.Forked(processes.connect(path), [sys.executable, '-m', 'probe', 'sleep'], env=env,\n"
              "                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)\n"
              "p.stdout.readline()\n"
              "print(p.pid, flush=True)\n"
              "os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    pid = int(out.stdout)
    deadline = time.monotonic() + 10
    while pid in running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid not in running()


@pytest.mark.parametrize("argv, options, because", [
    (SEED, {"stdout": 1, "stderr": -1, "env": {}}, None),
    (["-m", "tfgraphs.labs.checking", "1", "lab1.py", "0"], {"stdout": -1, "stderr": -1, "text": True}, None),
    # A watched script imports TensorFlow itself, after whatever it sets first; the command line never imports it.
    (["-m", "tfgraphs.worker.watch", "--out", "w.json", "--", "s.py"], {}, "a watched script imports TensorFlow itself"),
    (["-m", "tfgraphs", "watch", "s.py"], {}, "not a worker"),
    (["-c", "print(1)"], {}, "not a worker"),
    (["-m", "tfgraphs.worker.network"], {"cwd": "/"}, "started with options a fork does not reproduce"),
])
def test_only_workers_started_as_a_fresh_interpreter_would_be_are_forked(argv, options, because):
    assert processes.fresh_because([sys.executable, *argv], options) == because
    assert processes.fresh_because(["/usr/bin/python3.0", *argv], options) == "not a worker"


def _seed(env=WORKERS):
    return processes.start([sys.executable, *SEED], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)


def _started(proc):
    """How proc started; it is ended at once, as only that is asked of it."""
    proc.kill()
    proc.wait()
    proc.stdout.close()
    return proc.started


def test_a_scope_of_fresh_workers_forks_none_and_a_scope_that_fails_ends_its_own_server_workers_and_folder(
        tmp_path, monkeypatch, own_servers):
    assert _started(_seed()) == "fresh"   # outside a command's scope, no server of its own
    with processes.workers(fork=False):
        assert _started(_seed()) == "fresh"
    # Its server's socket too long for an AF_UNIX address in the temporary folder: it goes in a short one.
    deep = tmp_path / ("a" * 120)
    deep.mkdir()
    monkeypatch.setenv("TMPDIR", str(deep))
    monkeypatch.setattr(tempfile, "tempdir", None)   # gettempdir() reads TMPDIR again
    made, chosen = [], processes.socket_folder

    def seen(name):
        made.append(chosen(name))
        return made[-1]
    monkeypatch.setattr(processes, "socket_folder", seen)
    with pytest.raises(RuntimeError, match="the parent failed"):
        with processes.workers():
            # A user's environment, without the session's servers: this server forks as the product's do.
            proc = _seed({k: v for k, v in WORKERS.items() if k != processes.SERVERS})
            server = psutil.Process(proc.pid).parent()
            doc = json.loads(proc.stdout.read())
            assert (proc.wait(60), proc.started, doc["status"]) == (0, "forked", "ok")
            assert server.ppid() == os.getpid()
            # Its page tables held what the server's did (tfgraphs.pagetables): it started as resident as a process
            # that imported TensorFlow itself, not the half of it a bare fork counts.
            assert doc["rss_bytes"]["start"] > 0.9 * server.memory_info().rss
            worker = processes.start([sys.executable, *SEED, "--runs", "1000000"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, env=WORKERS)   # measuring when the parent fails
            raise RuntimeError("the parent failed")
    assert _all_gone([worker.pid, server.pid])
    (folder,) = made
    assert not folder.startswith(str(deep)) and not os.path.exists(folder) and list(deep.iterdir()) == []


def test_a_logged_worker_is_forked_from_a_server_whose_import_had_its_log_settings():
    from tfgraphs.jobs.runner import Progress, run_worker
    from tfgraphs.spec.network import SeedTask

    timed = SeedTask(variant="placeholder", batch=10, runs=1)
    with processes.workers():
        docs = [run_worker(t, "w", Progress(1, quiet=True)) for t in (timed, replace(timed, mode="traced"))]
    assert [(d["status"], d["worker_start"]) for d in docs] == [("ok", "forked"), ("ok", "forked")]
    assert docs[1]["first_run_inside"]   # TensorFlow logged its optimizers: the settings were there at its import


def test_fresh_workers_import_tensorflow_themselves(capfd, tmp_path):
    out = tmp_path / "c.json"
    proc = run_main(capfd, "compare", "--batch", 10, "--runs", 1, "--trials", 1, "--variants", "placeholder",
                    "--fresh-workers", "--json", out, "--quiet")
    assert proc.returncode == 0, proc.stderr
    (trial,) = json.loads(out.read_text())["variants"][0]["trials"]
    assert trial["worker_start"] == "fresh" and trial["import_s"] > 0.1


def test_the_notebooks_kernel_is_the_forked_one():
    from jupyter_client.kernelspec import KernelSpecManager

    argv = KernelSpecManager().get_kernel_spec("python3").argv
    assert argv == [sys.executable, os.path.join(os.path.dirname(__file__), "forking", "kernel.py"), "-f",
                    "{connection_file}"]


def _forked_worker_of(proc, seconds=120):
    """(server pid, worker pid) once the command proc's server has forked a worker."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for kid in psutil.Process(proc.pid).children():
            grandchildren = kid.children()
            if "tfgraphs.processes" in " ".join(kid.cmdline()) and grandchildren:
                return kid.pid, grandchildren[0].pid
        time.sleep(0.05)
    raise AssertionError("no worker was forked")


def _all_gone(pids, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]:
            return True
        time.sleep(0.05)
    return False


# SIGTERM, and SIGINT with a remote server, are test_remote's; the server's own end, test_a_killed_child_...
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_the_commands_end_while_a_forked_worker_measures_leaves_no_process(sig, own_servers):
    proc = subprocess.Popen([sys.executable, "-m", "tfgraphs", "compare", "--batch", "20", "--runs", "1000000",
                             "--trials", "1", "--variants", "placeholder", "--quiet"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, preexec_fn=interruptible)
    try:
        pids = _forked_worker_of(proc)
    finally:
        proc.send_signal(sig)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:   # the signal did not end it: end it, so the test leaves nothing behind
            proc.kill()
            proc.wait()
            raise
    assert _all_gone(pids)


def test_a_worker_past_its_timeout_is_a_failed_row_and_leaves_no_process(capfd, tmp_path, monkeypatch):
    monkeypatch.setenv("PROBE_MARK", "timed-out")
    out = tmp_path / "c.json"
    proc = run_main(capfd, "compare", "--batch", 10, "--runs", 1000000, "--trials", 1, "--variants", "placeholder",
                    "--timeout", 2, "--json", out, "--quiet")
    (trial,) = json.loads(out.read_text())["variants"][0]["trials"]
    assert proc.returncode == 1 and trial == {**trial, "status": "failed", "worker_start": "forked",
                                              "error": "worker killed after the 2 s timeout"}
    assert [argv for argv, env in running().values() if env.get("PROBE_MARK") == "timed-out"] == []


def test_a_socket_no_temporary_folder_can_hold_leaves_the_workers_fresh_and_no_folder(tmp_path, monkeypatch):
    deep = tmp_path / ("a" * 120)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    monkeypatch.setattr(processes, "SHORT_TEMP", (str(deep), str(tmp_path / "missing")))
    assert processes.socket_folder(processes.key(WORKERS) + ".sock") is None and list(deep.iterdir()) == []
