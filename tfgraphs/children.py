"""Child processes that end with the tfgraphs process that started them, even when it is killed by SIGKILL; a
command's workers are forked from a server that imported TensorFlow once, where that gives what a fresh start gives."""

import ctypes
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager

from tfgraphs import forkserver

PR_SET_PDEATHSIG = 1   # linux/prctl.h
# Looked up here, in the parent: loading a library between fork and exec could wait on a lock another thread held.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None

# The modules whose processes may be forked: the measuring workers and the lab checks' child. A watched script runs
# as `python SCRIPT` would: its own import of TensorFlow, after whatever it sets in its environment first.
FORKED = ("tfgraphs.worker.", "tfgraphs.labs.checking")
NEVER_FORKED = ("tfgraphs.worker.watch",)
# What a fork reproduces of Popen's options; any other starts a fresh interpreter.
FORK_OPTIONS = {"stdin", "stdout", "stderr", "env", "text", "errors"}
# Environment variables read while TensorFlow, Python or the C libraries load: a server per distinct set of them.
LOAD_TIME = ("TF_", "CUDA", "OMP_", "KMP_", "MKL", "GRPC", "XLA", "PYTHON", "LD_", "MALLOC")
# A folder of servers already running, one socket per load-time environment (a test session keeps one there).
SERVERS = "TFGRAPHS_WORKER_SERVERS"
FORKED_START, FRESH_START = "forked", "fresh"
ENDING_S = 10   # how long a server is given to end its children and itself once its command is done

_scopes = []   # the open workers() scopes of this process, innermost last: {key: (Popen, socket path) or None}


def _dies_with(parent):
    """In the child, before exec: ask the kernel for SIGKILL when the parent ends, and end now if it already has."""
    def arrange():
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return arrange


def fresh(argv, **kwargs):
    """subprocess.Popen(argv), the child bound to end with this process (Linux; elsewhere it is ended on exit)."""
    if _PRCTL is not None:
        kwargs["preexec_fn"] = _dies_with(os.getpid())
    proc = subprocess.Popen(argv, **kwargs)
    proc.started = FRESH_START
    return proc


def start(argv, fork=True, **kwargs):
    """A handle like subprocess.Popen(argv)'s: forked from this command's server when fork allows it and a fork
    gives what `python -m MODULE` gives (see fresh_because); otherwise a fresh interpreter. handle.started says which."""
    if fork and fresh_because(argv, kwargs) is None:
        conn = _connection(kwargs.get("env") or os.environ)
        if conn is not None:
            try:
                return forkserver.Forked(conn, argv, **kwargs)
            except (RuntimeError, OSError):   # the server ended as it was asked: start this one fresh
                conn.close()
    return fresh(argv, **kwargs)


def fresh_because(argv, kwargs=None):
    """Why argv cannot be forked (None when it can): a fork reproduces `python -m MODULE` of a worker module only."""
    if not hasattr(os, "pidfd_open") or _PRCTL is None:
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
    loads = {k: v for k, v in env.items() if k.startswith(LOAD_TIME)}
    network = os.stat("/proc/self/ns/net").st_ino
    return hashlib.sha1(json.dumps([loads, network], sort_keys=True).encode()).hexdigest()[:16]


def _connection(env):
    """A connection to a running server for env, one started for the innermost scope, or None (start fresh)."""
    name = key(env) + ".sock"
    servers = _scopes[-1] if _scopes else {}
    if servers is None:   # a scope of fresh workers, --fresh-workers
        return None
    shared = os.path.join(os.environ.get(SERVERS, ""), name)
    if SERVERS in os.environ and os.path.exists(shared):
        try:
            return forkserver.connect(shared)
        except RuntimeError:   # it has ended
            pass
    if not _scopes:
        return None
    if name not in servers:
        servers[name] = _server(env)
    if servers[name] is None:
        return None
    try:
        return forkserver.connect(servers[name][1], servers[name][0])
    except RuntimeError:   # it could not import TensorFlow: a fresh worker will say why
        servers[name] = None
        return None


def _server(env):
    """(Popen, socket path) of a new server for env, in a folder of its own."""
    return start_server(env, tempfile.mkdtemp(prefix="tfgraphs-workers-"))


def start_server(env, folder):
    """(Popen, socket path) of a new server in folder importing TensorFlow with env, logging to a file beside its
    socket; it ends when its stdin closes, and with this process."""
    path = os.path.join(folder, key(env) + ".sock")
    with open(path + ".log", "w") as log:
        proc = fresh([sys.executable, "-m", "tfgraphs.forkserver", path], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=log, env=dict(env))
    return proc, path
