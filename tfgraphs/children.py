"""Child processes that end with the tfgraphs process that started them, even when it is killed by SIGKILL; a
command's workers are forked from a server that imported TensorFlow once, where that gives what a fresh start gives;
a user's code runs in a session of its own, and whatever it leaves running is ended with it (grouped)."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager

from tfgraphs import forked, forkserver

# The modules whose processes may be forked: the measuring workers and the lab checks' child. A watched script runs
# as `python SCRIPT` would: its own import of TensorFlow, after whatever it sets in its environment first.
FORKED = ("tfgraphs.worker.", "tfgraphs.labs.checking")
NEVER_FORKED = ("tfgraphs.worker.watch",)
# What a fork reproduces of Popen's options; any other starts a fresh interpreter.
FORK_OPTIONS = {"stdin", "stdout", "stderr", "env", "text", "errors"}
# A folder of servers already running, one socket per load-time environment (a test session keeps one there).
SERVERS = "TFGRAPHS_WORKER_SERVERS"
FORKED_START, FRESH_START = "forked", "fresh"
ENDING_S = 10   # how long a server is given to end its children and itself once its command is done

# What a terminal sends its foreground group, passed on to a grouped() process, which no terminal reaches directly.
FORWARDED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
                  if hasattr(signal, name))
GRACE_S = 2   # how long a process left running has to end on SIGTERM before it gets SIGKILL

_scopes = []   # the open workers() scopes of this process, innermost last: {key: (Popen, socket path) or None}


def fresh(argv, **kwargs):
    """subprocess.Popen(argv), the child bound to end with this process (Linux; elsewhere it is ended on exit)."""
    proc = forkserver.bound(argv, **kwargs)
    proc.started = FRESH_START
    return proc


def start(argv, **kwargs):
    """A handle like subprocess.Popen(argv)'s: forked from a server for its environment when a fork gives what
    `python -m MODULE` gives (see fresh_because) within a workers() scope; otherwise a fresh interpreter.
    handle.started says which."""
    if fresh_because(argv, kwargs) is None:
        conn = _connection(kwargs.get("env") or os.environ)
        if conn is not None:
            try:
                return forked.Forked(conn, argv, **kwargs)
            except (RuntimeError, OSError):   # the server ended as it was asked: start this one fresh
                conn.close()
    return fresh(argv, **kwargs)


def fresh_because(argv, kwargs=None):
    """Why argv cannot be forked (None when it can): a fork reproduces `python -m MODULE` of a worker module only."""
    if not hasattr(os, "pidfd_open") or forkserver.PRCTL is None:
        return "forking needs Linux"
    if len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m" or not argv[2].startswith(FORKED):
        return "not a worker"
    if argv[2].startswith(NEVER_FORKED):
        return "a watched script imports TensorFlow itself"
    if not set(kwargs or {}) <= FORK_OPTIONS:
        return "started with options a fork does not reproduce"
    return None


@contextmanager
def workers(fork=True):
    """Within: workers fork from a server per load-time environment, each started on first need and ended on exit."""
    servers = {} if fork else None
    _scopes.append(servers)
    try:
        yield
    finally:
        _scopes.remove(servers)
        for proc, path in filter(None, (servers or {}).values()):
            proc.stdin.close()   # its signal to end, and to end its children
            try:
                proc.wait(ENDING_S)
            except subprocess.TimeoutExpired:
                proc.kill()      # and its children with it (PR_SET_PDEATHSIG)
                proc.wait()
            shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def key(env):
    """The server an environment's workers fork from: its load-time part, and this process's network namespace."""
    return hashlib.sha1(json.dumps([forked.load_time(env), _network()], sort_keys=True).encode()).hexdigest()[:16]


def _connection(env):
    """A connection to a running server for env, one started for the innermost scope, or None (start fresh)."""
    name = key(env) + ".sock"
    servers = _scopes[-1] if _scopes else {}
    if servers is None:   # a scope of fresh workers, --fresh-workers
        return None
    conn = _shared(env, name) if SERVERS in os.environ else None
    if conn is not None:
        return conn
    if not _scopes:
        return None
    if name not in servers:
        servers[name] = _server(env)
    if servers[name] is None:
        return None
    try:
        return forked.connect(servers[name][1], servers[name][0])
    except RuntimeError:   # it could not import TensorFlow: a fresh worker will say why
        servers[name] = None
        return None


def _server(env):
    """(Popen, socket path) of a new server for env, in a folder of its own."""
    return start_server(env, tempfile.mkdtemp(prefix="tfgraphs-workers-"))


def start_server(env, folder):
    """(Popen, socket path) of a new server in folder for env; a folder shared by many commands (SERVERS) gets the
    first of each network namespace as its starter of others."""
    path = os.path.join(folder, key(env) + ".sock")
    first = os.path.join(folder, f"first-{_network()}.sock")
    if not os.path.lexists(first):
        os.symlink(os.path.basename(path), first)
    return forkserver.spawn(path, env), path


def _shared(env, name):
    """A connection to the shared folder's server for env, which its first server starts if it has none yet."""
    folder = os.environ[SERVERS]
    path, first = os.path.join(folder, name), os.path.join(folder, f"first-{_network()}.sock")
    try:
        if not os.path.exists(path):
            with forked.connect(first, wait_s=0) as conn:
                forked.send(conn, {"start": path, "env": dict(env)})
        return forked.connect(path)
    except RuntimeError:   # no server there, or it has ended
        return None


def _network():
    """This process's network namespace: a server's children join its network, so a server serves one."""
    return os.stat("/proc/self/ns/net").st_ino


class Group:
    """A process started in a session, and so a process group, of its own; ended: [(pid, name)] of the processes
    left running in that session that end() ended."""

    def __init__(self, proc):
        self.proc, self.ended = proc, []

    def signal(self, sig):
        """Send sig to the process group, as a terminal sends Ctrl-C to its foreground group."""
        if self.proc.returncode is None:   # once collected, its number may be another group's
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass

    def end(self, grace_s=GRACE_S):
        """Kill the process if it still runs, then end every process left in its session; what was ended so far."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.ended += end_session(self.proc.pid, grace_s)
        return self.ended


@contextmanager
def grouped(argv, forward=FORWARDED, grace_s=GRACE_S, **kwargs):
    """A Group of subprocess.Popen(argv, **kwargs), a fresh process in a session of its own, bound to end with this
    process. Within, the signals in forward that reach this process go to its group instead; on leaving, the process
    is killed if it still runs, and every process left in its session is ended and listed in the Group's ended."""
    group = Group(fresh(argv, start_new_session=True, **kwargs))
    previous = _forwarding(group, forward)
    try:
        yield group
    finally:
        try:
            group.end(grace_s)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def _forwarding(group, signals):
    """{signal: its previous handler} for each of signals, now sent on to group (none outside the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, lambda number, frame: group.signal(number)) for sig in signals}


def end_session(sid, grace_s=GRACE_S):
    """[(pid, name)] of the processes of session sid, each ended: SIGTERM, then SIGKILL after grace_s."""
    import psutil   # here, not at the top: the command line starts without it
    ended = {}
    # A process forked while the others end is found by the next round.
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 1), (signal.SIGKILL, 1)):
        left = _in_session(sid)
        if not left:
            break
        for proc in left:
            try:
                ended.setdefault(proc.pid, proc.name())
                proc.send_signal(sig)   # psutil checks that the pid is still this process's
            except psutil.Error:
                pass
        _wait_gone(left, wait_s)
    return sorted(ended.items())


def listed(ended, which=""):
    """'1 process WHICH (pid 1234: sleep)' for end_session's list."""
    return (f"{len(ended)} process{'es' if len(ended) != 1 else ''}{' ' + which if which else ''} ("
            + ", ".join(f"pid {pid}: {name}" for pid, name in ended) + ")")


def _in_session(sid):
    """The live processes of session sid other than this one."""
    import psutil
    found = []
    for proc in psutil.process_iter(["status"]):
        try:
            if (proc.pid != os.getpid() and proc.info["status"] != psutil.STATUS_ZOMBIE
                    and os.getsid(proc.pid) == sid):
                found.append(proc)
        except OSError:   # it ended while being looked at
            pass
    return found


def _wait_gone(procs, seconds):
    """Wait until none of procs runs (a zombie has ended), or for seconds."""
    deadline = time.monotonic() + seconds
    while procs and time.monotonic() < deadline:
        procs = [p for p in procs if _running(p)]
        if procs:
            time.sleep(0.02)


def _running(proc):
    import psutil
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
