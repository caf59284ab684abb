"""How a worker process starts, forked or fresh, is given its task, answers, and ends.

A command's workers are forked (Linux) from a server, `python -m tfgraphs.processes SOCKET`, that imported TensorFlow
and did nothing else: each child takes its requester's stdin, stdout, stderr, folder, environment and process group
and runs `python -m MODULE ARGS` as a fresh interpreter would. Elsewhere, and for a worker a fork would not reproduce,
a fresh interpreter starts. Either way the child ends with the tfgraphs process that started it, even when that is
killed by SIGKILL (PR_SET_PDEATHSIG). A user's code runs in a session of its own, and whatever it leaves running is
ended with it (grouped). /proc shows a forked child as its server: running() says what each child runs, and with what
environment.
"""

import argparse
import ctypes
import hashlib
import json
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import contextmanager
from dataclasses import MISSING, field, fields

from tfgraphs import pagetables

# The modules whose processes may be forked: the measuring workers, the lab checks' child and a class's judges. A
# watched script runs as `python SCRIPT` would: its own import of TensorFlow, after whatever it sets in its
# environment first.
FORKABLE = ("tfgraphs.worker.", "tfgraphs.labs.checking", "tfgraphs.labs.grading")
NEVER_FORKED = ("tfgraphs.worker.watch",)
# What a fork reproduces of Popen's options; any other starts a fresh interpreter.
FORK_OPTIONS = {"stdin", "stdout", "stderr", "env", "text", "errors", "start_new_session"}
# A folder of servers already running, one socket per load-time environment (a test session keeps one there).
SERVERS = "TFGRAPHS_WORKER_SERVERS"
FORKED_START, FRESH_START = "forked", "fresh"
ENDING_S = 10   # how long a server is given to end its children and itself once its command is done
# Environment variables read while TensorFlow, Python or the C libraries load: a server per distinct set of them.
LOAD_TIME = ("TF_", "CUDA", "OMP_", "KMP_", "MKL", "GRPC", "XLA", "PYTHON", "LD_", "MALLOC")
HEADER = struct.Struct("!I")   # the length of a request, before its JSON
PR_SET_PDEATHSIG = 1   # linux/prctl.h
# Looked up here, in the parent: loading a library between fork and exec could wait on a lock another thread held.
PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


_scopes = []   # the open workers() scopes of this process, innermost last: {key: (Popen, socket path) or None}


# Starting a worker.

def _dies_with(parent):
    """In the child, before exec: ask the kernel for SIGKILL when the parent ends, and end now if it already has."""
    def arrange():
        PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return arrange


def fresh(argv, **kwargs):
    """subprocess.Popen(argv), the child bound to end with this process (Linux; elsewhere it is ended on exit)."""
    if PRCTL is not None:
        kwargs["preexec_fn"] = _dies_with(os.getpid())
    proc = subprocess.Popen(argv, **kwargs)
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
                return Forked(conn, argv, **kwargs)
            except (RuntimeError, OSError):   # the server ended as it was asked: start this one fresh
                conn.close()
    return fresh(argv, **kwargs)


def fresh_because(argv, kwargs=None):
    """Why argv cannot be forked (None when it can): a fork reproduces `python -m MODULE` of a worker module only."""
    if not hasattr(os, "pidfd_open") or PRCTL is None:
        return "forking needs Linux"
    if len(argv) < 3 or argv[0] != sys.executable or argv[1] != "-m" or not argv[2].startswith(FORKABLE):
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
            end_server(proc, os.path.dirname(path))


def end_server(proc, folder):
    """End a server start_server made, and its children, then remove its folder."""
    proc.stdin.close()   # its signal to end, and to end its children
    try:
        proc.wait(ENDING_S)
    except subprocess.TimeoutExpired:
        proc.kill()      # and its children with it (PR_SET_PDEATHSIG)
        proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


def load_time(env):
    """The part of an environment that TensorFlow, Python and the C libraries read as they load."""
    return {k: v for k, v in env.items() if k.startswith(LOAD_TIME)}


def key(env):
    """The server an environment's workers fork from: its load-time part, and this process's network namespace."""
    return hashlib.sha1(json.dumps([load_time(env), _network()], sort_keys=True).encode()).hexdigest()[:16]


def _network():
    """This process's network namespace: a server's children join its network, so a server serves one."""
    return os.stat("/proc/self/ns/net").st_ino


def _connection(env):
    """A connection to a running server for env, one started for the innermost scope, or None (start fresh)."""
    name = key(env) + ".sock"
    servers = _scopes[-1] if _scopes else {}
    if servers is None:   # a scope of fresh workers, --fresh-workers
        return None
    conn = _shared(env, name) if SERVERS in os.environ else None
    if conn is not None or not _scopes:
        return conn
    if name not in servers:
        folder = socket_folder(name)
        servers[name] = None if folder is None else start_server(env, folder)
    if servers[name] is None:
        return None
    try:
        return connect(servers[name][1], servers[name][0])
    except RuntimeError:   # it could not import TensorFlow: a fresh worker will say why
        proc, path = servers[name]
        servers[name] = None
        end_server(proc, os.path.dirname(path))   # and its folder goes with it
        return None


# An AF_UNIX address holds a path of at most 107 bytes (sun_path's 108, the last a NUL: linux/un.h); a server binds
# its socket's path + ".new" first.
SOCKET_PATH_BYTES = 107
# Shorter folders a server's socket may go in when the temporary folder's path is too long for one.
SHORT_TEMP = ("/tmp", "/var/tmp", "/dev/shm")


def socket_folder(name):
    """A new folder where a server's socket `name` fits an AF_UNIX address: in the temporary folder, else in the
    first of SHORT_TEMP that fits and is writable; None when none is (its workers then start fresh)."""
    for parent in (None, *SHORT_TEMP):
        try:
            folder = tempfile.mkdtemp(prefix="tfgraphs-workers-", dir=parent)
        except OSError:
            continue
        if len(os.fsencode(os.path.join(folder, name + ".new"))) <= SOCKET_PATH_BYTES:
            return folder
        os.rmdir(folder)
    return None


def start_server(env, folder):
    """(Popen, socket path) of a new server in folder importing TensorFlow with env, logging to a file beside its
    socket; it ends when its stdin closes, and with this process. A folder shared by many commands (SERVERS) gets the
    first of each network namespace as its starter of others."""
    path = os.path.join(folder, key(env) + ".sock")
    first = os.path.join(folder, f"first-{_network()}.sock")
    if not os.path.lexists(first):
        os.symlink(os.path.basename(path), first)
    return _spawn(path, env), path


def _spawn(path, env):
    """A server at path importing TensorFlow with env (see start_server)."""
    with open(path + ".log", "w") as log:
        return fresh([sys.executable, "-m", "tfgraphs.processes", path], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=log, env=dict(env))


def _shared(env, name):
    """A connection to the shared folder's server for env, which its first server starts if it has none yet."""
    folder = os.environ[SERVERS]
    path, first = os.path.join(folder, name), os.path.join(folder, f"first-{_network()}.sock")
    try:
        if not os.path.exists(path):
            with connect(first, wait_s=0) as conn:
                send(conn, {"start": path, "env": dict(env)})
        return connect(path)
    except RuntimeError:   # no server there, or it has ended
        return None


# A forked worker as its requester holds it, and the messages the two exchange.

def running(folder):
    """{pid: (argv, environment)} of the children not yet ended of the server whose socket is in folder."""
    folder = os.path.join(folder, "running")
    found = {}
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        try:
            with open(os.path.join(folder, name)) as f:
                found[int(name)] = tuple(json.load(f))
        except (OSError, ValueError):   # ended while being read
            continue
    return found


def connect(path, server=None, wait_s=300):
    """A connection to the server at path once it has imported TensorFlow and listens (its socket appears only
    then); RuntimeError if it ended, or did not start within wait_s."""
    conn, deadline = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM), time.monotonic() + wait_s
    while True:
        try:
            conn.connect(path)
            return conn
        except FileNotFoundError:
            if (server is not None and server.poll() is not None) or time.monotonic() > deadline:
                conn.close()
                raise RuntimeError("the worker server did not start") from None
            time.sleep(0.02)
        except ConnectionRefusedError:
            conn.close()
            raise RuntimeError("the worker server has ended") from None
        except OSError as exc:   # a path no AF_UNIX address holds, say
            conn.close()
            raise RuntimeError(f"cannot reach the worker server: {exc}") from None


def send(conn, request, fds=()):
    """Send a request (JSON, after its length) and the descriptors that go with it."""
    data = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(data)) + data], list(fds))


class Forked:
    """What subprocess.Popen gives for the calls tfgraphs makes: pid, pipes, poll, wait, kill, terminate."""

    started = FORKED_START

    def __init__(self, conn, argv, stdin=None, stdout=None, stderr=None, env=None, text=False, errors=None,
                 start_new_session=False):
        self.args, self.returncode, self._conn, self._unread = argv, None, conn, b""
        self.stdin = self.stdout = self.stderr = None
        fds, mine = [], []
        for number, how in enumerate((stdin, stdout, stderr)):
            if how is None:
                fds.append(number)
            elif how == subprocess.DEVNULL:
                fds.append(os.open(os.devnull, os.O_RDWR))
                mine.append(fds[-1])
            elif how == subprocess.PIPE:
                read, write = os.pipe()
                ours, theirs = (write, read) if number == 0 else (read, write)
                fds.append(theirs)
                mine.append(theirs)
                mode = ("w" if number == 0 else "r") + ("" if text or errors else "b")
                setattr(self, ("stdin", "stdout", "stderr")[number],
                        open(ours, mode, errors=errors) if "b" not in mode else open(ours, mode))
            else:
                fds.append(how if isinstance(how, int) else how.fileno())
        try:
            send(conn, {"argv": argv[2:], "env": dict(os.environ if env is None else env), "cwd": os.getcwd(),
                        "sid": os.getsid(0), "pgid": os.getpgid(0), "new_session": start_new_session}, fds)
            line = self._line(None)
            if not line.isdigit():
                raise RuntimeError("the worker server ended before forking")
        except (OSError, RuntimeError):
            # start() starts this one fresh instead: none of this attempt's pipes may stay open.
            for held in (self.stdin, self.stdout, self.stderr):
                if held is not None:
                    held.close()
            raise
        finally:
            for fd in mine:
                os.close(fd)
        self.pid = int(line)

    def _line(self, timeout):
        """The server's next line, or None if none came within timeout seconds."""
        while b"\n" not in self._unread:
            if not select.select([self._conn], [], [], timeout)[0]:
                return None
            self._unread += self._conn.recv(4096) or b"-9\n"   # a server that vanished took its child with it
        line, self._unread = self._unread.split(b"\n", 1)
        return line

    def poll(self):
        if self.returncode is None:
            self._finish(self._line(0))
        return self.returncode

    def wait(self, timeout=None):
        if self.returncode is None:
            self._finish(self._line(timeout))
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig):
        # The server signals only a child it has not reaped, so never a process that took over its pid.
        if self.poll() is None:
            try:
                self._conn.sendall(f"{int(sig)}\n".encode())
            except OSError:   # it has just ended
                pass

    def kill(self):
        self.send_signal(signal.SIGKILL)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def _finish(self, line):
        if line is not None:
            self.returncode = int(line)
            self._conn.close()


# The server's side: import TensorFlow, then fork a child per request.

def serve_forks(path):
    """Import TensorFlow, then fork a child per request until stdin closes (the process that started it ended); a
    request to start a server for another environment starts it beside this one, to end with it."""
    from tfgraphs.tfimport import import_tensorflow

    # Ctrl-C reaches the whole group: the requester ends its children, and this server when it ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import_tensorflow()   # the point: every child starts with it imported, and with nothing else done
    mapped = pagetables.mapped_pages()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)   # a requester that finds the socket finds it listening
    children, conns, others = {}, {}, {}   # pidfd -> (pid, conn); conn -> pidfd; socket -> server started
    registry = os.path.join(os.path.dirname(path), "running")
    while True:
        ready = select.select([sys.stdin, listener, *conns, *children], [], [])[0]
        if sys.stdin in ready and not sys.stdin.buffer.read1(1):
            for pid, _ in children.values():
                os.kill(pid, signal.SIGKILL)
            for other in others.values():
                other.stdin.close()
                other.wait()
            return
        if listener in ready:
            conn = listener.accept()[0]
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError, struct.error):   # a requester that left before asking
                conn.close()
                continue
            if "start" in request:
                if request["start"] not in others or others[request["start"]].poll() is not None:
                    # This server's environment but for what loads with TensorFlow: nothing else of the asker's.
                    env = {**{k: v for k, v in os.environ.items() if k not in load_time(os.environ)},
                           **load_time(request["env"])}
                    others[request["start"]] = _spawn(request["start"], env)
                conn.close()   # it is importing TensorFlow: its socket appears once it listens
                continue
            pid = _fork(request, fds, [conn, listener, *conns, *children], mapped)
            _write_running(os.path.join(registry, str(pid)), [sys.executable, "-m", *request["argv"]], request["env"])
            pidfd = os.pidfd_open(pid)
            children[pidfd], conns[conn] = (pid, conn), pidfd
            conn.sendall(f"{pid}\n".encode())
        for conn in [c for c in ready if c in conns]:
            _pass_signals(conn, conns)
        for pidfd in [p for p in ready if p in children]:
            _reap(children.pop(pidfd), pidfd, conns, registry)


def _reap(child, pidfd, conns, registry):
    """Collect an ended child's status and pass it to its requester, if it is still there."""
    pid, conn = child
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    os.close(pidfd)
    os.unlink(os.path.join(registry, str(pid)))
    if conns.pop(conn, None) is not None:
        try:
            conn.sendall(f"{code}\n".encode())
        except OSError:
            pass
    conn.close()


def _pass_signals(conn, conns):
    """Send the child the signals its requester asks for; a closed connection is a requester that ended: SIGKILL."""
    line = conn.recv(64)
    for sig in (line.split() if line else [b"9"]):
        try:
            signal.pidfd_send_signal(conns[conn], int(sig))
        except ProcessLookupError:
            pass
    if not line:
        del conns[conn]


def _write_running(path, *value):
    """Write what a child runs to the registry running() reads, whole."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", "w") as f:
        json.dump(value, f)
    os.rename(path + ".new", path)


def _receive(conn):
    """A request and the descriptors sent with it."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    (size,) = HEADER.unpack_from(data)
    while len(data) < HEADER.size + size:
        data += conn.recv(1 << 20)
    return json.loads(data[HEADER.size:]), fds


def _fork(request, fds, inherited, mapped):
    """Fork the request's child, which never returns; the child's pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    server = os.getpid()
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    code = 1
    try:
        pagetables.populate(mapped)
        _become(request, fds, inherited, server)
    except SystemExit as exc:
        if isinstance(exc.code, int) or exc.code is None:
            code = exc.code or 0
        else:   # sys.exit("message"), as Python ends with it
            print(exc.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    else:
        code = 0
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _become(request, fds, inherited, server):
    """In the forked child: end with the server, then become `python -m MODULE ARGS` started by the requester."""
    import runpy

    _dies_with(server)()
    for held in inherited:   # the server's sockets and pidfds
        held.close() if hasattr(held, "close") else os.close(held)
    sys.stdin.close()
    if request["new_session"]:
        os.setsid()
    elif request["sid"] == os.getsid(0):   # a group of another session cannot be joined
        os.setpgid(0, request["pgid"])
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
    for fd in set(fds) - {0, 1, 2}:
        os.close(fd)
    sys.stdin = open(0, "r", closefd=False)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    signal.signal(signal.SIGINT, signal.default_int_handler)
    module, *args = request["argv"]
    sys.argv = [module, *args]
    sys.path[0] = os.getcwd()
    runpy.run_module(module, run_name="__main__", alter_sys=True)


# A task crosses to its worker as flags, one per field of its frozen record; the worker answers with one JSON
# document on stdout and tells the parent its progress in PHASE_PREFIX lines on stderr.

PHASE_PREFIX = "@phase "


def choice(names):
    """A task field whose flag takes one of names."""
    return field(metadata={"choices": tuple(names)})


def _flag(f):
    return "--" + f.name.replace("_", "-")


def to_argv(task):
    """`python` arguments that run the task's worker: -m MODULE, then one flag per field that is set."""
    argv = ["-m", task.MODULE]
    for f in fields(task):
        value = getattr(task, f.name)
        if value is not None:
            argv += [_flag(f), str(value)]
    return argv


def from_argv(cls, argv=None):
    """The task a worker was started with, parsed from the flags to_argv wrote."""
    p = argparse.ArgumentParser(prog=f"python -m {cls.MODULE}", description=cls.__doc__)
    for f in fields(cls):
        required = f.default is MISSING
        p.add_argument(_flag(f), dest=f.name, type=int if f.type is int else str, required=required,
                       default=None if required else f.default, choices=f.metadata.get("choices"))
    return cls(**vars(p.parse_args(argv)))


def phase(name):
    """Tell the parent which phase starts now."""
    print(PHASE_PREFIX + name, file=sys.stderr, flush=True)


def main(task_type, measure):
    """A worker's entry point: its whole job as flags, one JSON document out, the exit status back."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    code = serve(measure, from_argv(task_type))
    sys.stdout.flush()
    sys.stderr.flush()
    # The document is written: skip TensorFlow's teardown, which takes seconds after a large graph.
    os._exit(code)


def serve(measure, task):
    """Print {"status": "ok", ...measure(task)} or a failed document on stdout; return the exit status."""
    # Keep stdout for the JSON document alone: anything else written to fd 1 lands on stderr.
    result_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    try:
        result = {"status": "ok", "error": None, **measure(task)}
        code = 0
    except Exception as exc:  # every failure must still produce a document for the parent
        traceback.print_exc(file=sys.stderr)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        result = {"status": "failed", "error": f"{type(exc).__name__}: {message}"[:500]}
        code = 1
    json.dump(result, result_stream)
    result_stream.close()
    return code


if __name__ == "__main__":
    serve_forks(sys.argv[1])
    os._exit(0)   # its children have ended: skip TensorFlow's teardown
