"""Worker processes for the tests, forked from a server that imported TensorFlow once instead of each importing it.

A server (`python forkserver.py SOCKET`) imports TensorFlow, then forks one child per request: the child takes the
requester's stdin, stdout, stderr, folder, environment and process group and runs `python -m MODULE ARGS` as a fresh
interpreter would. Each environment TensorFlow can load with (what LOAD_TIME names) has its own server, started the
first time a child needs it. The requester's side, start(), answers for tfgraphs.children.start with a Popen-like
handle, and starts a real process for what a fork would not reproduce: another module, other Popen options.
A watched script's child finds tensorflow missing from sys.modules until its own import, which then gets the
server's (Preloaded), so that the watch starts on that import as it would in a fresh interpreter.
A child ends when its requester does, as children.start promises: its server kills it when the requester's
connection closes. /proc shows a child as its server; running() says what each child runs, and with what environment.
"""

import hashlib
import importlib.util
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

FOLDER = "TFGRAPHS_TEST_FORKING"   # the session's folder: a socket per environment, and the children running
# Modules whose processes are forked: the measuring workers, the watched scripts' runner and the lab checks' child;
# not the command line (its process never imports TensorFlow).
FORKED = ("tfgraphs.worker.", "tfgraphs.labs.checking")
# Modules whose child finds TensorFlow not imported until it imports it: a watch starts on the script's own import.
HIDES_TENSORFLOW = ("tfgraphs.worker.watch",)
# Environment variables read while TensorFlow, Python or the C libraries load: a child runs in a server started with
# exactly these.
LOAD_TIME = ("TF_", "CUDA", "OMP_", "KMP_", "MKL", "GRPC", "XLA", "PYTHON", "LD_", "MALLOC")
OPTIONS = {"stdin", "stdout", "stderr", "env", "text", "errors"}
HEADER = struct.Struct("!I")
FIRST = "first"   # the server the session starts; it starts each other one when a child first needs it


def load_time(env):
    """The part of an environment that TensorFlow and the interpreter read as they load."""
    return {k: v for k, v in env.items() if k.startswith(LOAD_TIME)}


def socket_for(folder, env):
    """The socket of the server whose TensorFlow loaded with env's load-time part."""
    key = hashlib.sha1(json.dumps(load_time(env), sort_keys=True).encode()).hexdigest()[:16]
    return os.path.join(folder, f"{key}.sock")


def running(folder=None):
    """{pid: (argv, environment)} of the forked children not yet ended, in this session."""
    folder = os.path.join(folder or os.environ[FOLDER], "running")
    found = {}
    for name in os.listdir(folder) if os.path.isdir(folder) else ():
        try:
            with open(os.path.join(folder, name)) as f:
                found[int(name)] = tuple(json.load(f))
        except (OSError, ValueError):   # ended while being read
            continue
    return found


# The requester's side.

def start(argv, real, **kwargs):
    """A forked child running argv when the fork reproduces `python -m ...`; otherwise real(argv, **kwargs)."""
    if not forks(argv, kwargs):
        return real(argv, **kwargs)
    return Forked(server(kwargs.get("env") or os.environ), argv, **kwargs)


def forks(argv, kwargs):
    """Whether start() forks this child: a worker module run by this interpreter, with options a fork reproduces,
    from a process whose network namespace the child can join."""
    return (FOLDER in os.environ and len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m"
            and set(kwargs) <= OPTIONS and argv[2].startswith(FORKED)
            and (os.geteuid() == 0 or _netns() == _netns(os.environ[FOLDER])))


def _netns(folder=None):
    """The inode of this process's network namespace, or of the servers' (written beside their sockets)."""
    if folder is None:
        return os.stat("/proc/self/ns/net").st_ino
    with open(os.path.join(folder, "netns")) as f:
        return int(f.read())


def server(env):
    """The socket of a server for env, asking the first server to start one if there is none yet."""
    folder = os.environ[FOLDER]
    path = socket_for(folder, env)
    if not os.path.exists(path):
        with _connect(os.path.join(folder, f"{FIRST}.sock")) as conn:
            _send(conn, {"start": load_time(env), "path": path})
            conn.recv(16)   # started (it may still be importing TensorFlow)
    return path


def _send(conn, request, fds=()):
    data = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(data)) + data], list(fds))


def _connect(server, wait_s=120):
    """A connection to the server, once it has imported TensorFlow and listens."""
    conn, deadline = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM), time.monotonic() + wait_s
    while True:
        try:
            conn.connect(server)
            return conn
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                with open(server + ".log") as log:
                    raise RuntimeError(f"the fork server {server} did not start:\n{log.read()[-2000:]}") from None
            time.sleep(0.05)


class Forked:
    """What subprocess.Popen gives for the calls tfgraphs makes: pid, pipes, poll, wait, kill, terminate."""

    def __init__(self, server, argv, stdin=None, stdout=None, stderr=None, env=None, text=False, errors=None):
        self.args, self.returncode = argv, None
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
        # The child joins this process's network: a CLI that fenced its servers in (jobs.netns) keeps them there.
        fds.append(os.open("/proc/self/ns/net", os.O_RDONLY))
        mine.append(fds[-1])
        self._conn = _connect(server)
        _send(self._conn, {"argv": argv[2:], "env": dict(env or os.environ), "cwd": os.getcwd(),
                           "sid": os.getsid(0), "pgid": os.getpgid(0)}, fds)
        for fd in mine:
            os.close(fd)
        self._unread = b""
        self.pid = int(self._line(None))

    def _line(self, timeout):
        """The server's next line, or None if none came within timeout seconds."""
        while b"\n" not in self._unread:
            if not select.select([self._conn], [], [], timeout)[0]:
                return None
            self._unread += self._conn.recv(4096) or b"1\n"   # a server that vanished: no status but a failure
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


def install():
    """Make tfgraphs.children.start fork, now if tfgraphs.children is loaded, else as soon as it is."""
    if "tfgraphs.children" in sys.modules:
        _patch(sys.modules["tfgraphs.children"])
    else:
        sys.meta_path.insert(0, _PatchOnImport())


def _patch(children):
    real = children.start
    children.start = lambda argv, **kwargs: start(argv, real, **kwargs)


class _PatchOnImport:
    """A one-shot sys.meta_path finder: patch tfgraphs.children once it has loaded."""

    def find_spec(self, name, path=None, target=None):
        if name != "tfgraphs.children":
            return None
        import importlib.util

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module
        return spec


# The server's side.

def serve(path):
    """Import TensorFlow, then fork a child per request until stdin closes (the session that started it ended)."""
    import tensorflow  # noqa: F401  (the point: every child starts with it imported)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)   # a requester that finds the socket finds it listening
    children, conns, started = {}, {}, {}   # pidfd -> (pid, conn); conn -> pidfd; socket -> server
    registry = os.path.join(os.path.dirname(path), "running")
    while True:
        ready = select.select([sys.stdin, listener, *conns, *children], [], [])[0]
        if sys.stdin in ready and not sys.stdin.buffer.read1(1):
            for pid, _ in children.values():
                os.kill(pid, signal.SIGKILL)
            for server in started.values():
                server.stdin.close()
                server.wait()
            return
        if listener in ready:
            conn = listener.accept()[0]
            request, fds = _receive(conn)
            if "start" in request:
                if request["path"] not in started:
                    # Its own environment but for what TensorFlow reads as it loads: nothing of one test's is kept.
                    env = {**{k: v for k, v in os.environ.items() if k not in load_time(os.environ)},
                           **load_time(request["start"])}
                    started[request["path"]] = _start(request["path"], env)
                conn.sendall(b"started\n")
                conn.close()
            else:
                pid = _fork(request, fds, [conn, listener, *conns, *children, *(s.stdin for s in started.values())])
                _write(os.path.join(registry, str(pid)), [sys.executable, "-m", *request["argv"]], request["env"])
                pidfd = os.pidfd_open(pid)
                children[pidfd], conns[conn] = (pid, conn), pidfd
                conn.sendall(f"{pid}\n".encode())
        for conn in [c for c in ready if c in conns]:
            _signal(conn, conns)
        for pidfd in [p for p in ready if p in children]:
            pid, conn = children.pop(pidfd)
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            os.close(pidfd)
            os.unlink(os.path.join(registry, str(pid)))
            if conns.pop(conn, None) is not None:
                try:
                    conn.sendall(f"{code}\n".encode())
                except OSError:
                    pass
            conn.close()


def _signal(conn, conns):
    """Send the child the signals its requester asks for; a closed connection is a requester that ended: SIGKILL."""
    line = conn.recv(64)
    for sig in (line.split() if line else [b"9"]):
        try:
            signal.pidfd_send_signal(conns[conn], int(sig))
        except ProcessLookupError:
            pass
    if not line:
        del conns[conn]


def _write(path, *value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", "w") as f:
        json.dump(value, f)
    os.rename(path + ".new", path)


def _receive(conn):
    """A request and the descriptors sent with it."""
    data, fds, _, _ = socket.recv_fds(conn, 1 << 20, 4)
    (size,) = HEADER.unpack_from(data)
    while len(data) < HEADER.size + size:
        data += conn.recv(1 << 20)
    return json.loads(data[HEADER.size:]), fds


def _start(path, env):
    """A server at path whose TensorFlow loads with env; it ends when this one closes its stdin."""
    # What TensorFlow prints as it loads goes to a file beside the socket, read if the server fails to start.
    with open(path + ".log", "w") as log:
        return subprocess.Popen([sys.executable, __file__, path], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=log, env=env)


def _fork(request, fds, inherited):
    """Fork the request's child, which closes what it inherited and never returns; the child's pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        return pid
    code = 1
    try:
        _child(request, fds, inherited)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else _said(exc.code))
    except BaseException:
        import traceback

        traceback.print_exc()
    else:
        code = 0
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _said(message):
    print(message, file=sys.stderr)
    return 1


def _child(request, fds, inherited):
    """In the forked child: become `python -m MODULE ARGS` started by the requester, and run it."""
    import runpy

    for held in inherited:   # the server's sockets, pidfds and pipes
        held.close() if hasattr(held, "close") else os.close(held)
    sys.stdin.close()
    if request["sid"] == os.getsid(0):   # a group of another session cannot be joined: a kernel's, say
        os.setpgid(0, request["pgid"])
    *stdio, network = fds
    if os.fstat(network).st_ino != _netns():
        _join_network(network)
    for number, fd in enumerate(stdio):
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
    if module in HIDES_TENSORFLOW:
        Preloaded.hide("tensorflow")
    runpy.run_module(module, run_name="__main__", alter_sys=True)


class Preloaded:
    """A one-shot sys.meta_path finder and loader: the first import of a package the server imported gives the
    server's module, run through the import machinery (and any finder ahead of this one) as a fresh import would."""

    def __init__(self, module):
        self.module, self.spec = module, module.__spec__

    @classmethod
    def hide(cls, name):
        """Take the package name out of sys.modules until it is imported again (its submodules stay loaded)."""
        sys.meta_path.insert(0, cls(sys.modules.pop(name)))

    def find_spec(self, name, path=None, target=None):
        if name != self.module.__name__:
            return None
        sys.meta_path.remove(self)
        return importlib.util.spec_from_loader(name, self, origin=self.spec.origin, is_package=True)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        module.__spec__ = self.spec   # the import machinery gave it this finder's spec


def _join_network(fd):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, 0x40000000) != 0:   # CLONE_NEWNET
        raise OSError(ctypes.get_errno(), f"cannot join the requester's network: {os.strerror(ctypes.get_errno())}")


def start_first(folder, env):
    """The session's first server, for env, which starts the others: its Popen (it is importing TensorFlow)."""
    path = socket_for(folder, env)
    os.symlink(os.path.basename(path), os.path.join(folder, f"{FIRST}.sock"))
    with open(os.path.join(folder, "netns"), "w") as f:
        f.write(str(_netns()))
    return _start(path, env)


if __name__ == "__main__":
    serve(sys.argv[1])
    os._exit(0)   # its children have ended: skip TensorFlow's teardown
