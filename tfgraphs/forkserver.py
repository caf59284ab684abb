"""A server that imported TensorFlow and did nothing else, forking one fresh worker per request (Linux).

`python -m tfgraphs.forkserver SOCKET` imports TensorFlow, listens on SOCKET, and forks a child per request: the child
takes the requester's stdin, stdout, stderr, folder, environment and process group and runs `python -m MODULE ARGS`
as a fresh interpreter would, with no graph, session, thread pool or allocator of anyone's. A child ends with its
requester's connection and with the server (PR_SET_PDEATHSIG); the server ends when its stdin closes, and with its
owner. /proc shows a child as the server: running() says what each child runs, and with what environment.
"""

import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

from tfgraphs import pagetables

HEADER = struct.Struct("!I")
PR_SET_PDEATHSIG = 1        # linux/prctl.h


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


# The requester's side.

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


class Forked:
    """What subprocess.Popen gives for the calls tfgraphs makes: pid, pipes, poll, wait, kill, terminate."""

    started = "forked"

    def __init__(self, conn, argv, stdin=None, stdout=None, stderr=None, env=None, text=False, errors=None):
        self.args, self.returncode, self._conn = argv, None, conn
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
        _send(conn, {"argv": argv[2:], "env": dict(os.environ if env is None else env), "cwd": os.getcwd(),
                     "sid": os.getsid(0), "pgid": os.getpgid(0)}, fds)
        for fd in mine:
            os.close(fd)
        self._unread = b""
        line = self._line(None)
        if not line.isdigit():
            raise RuntimeError("the worker server ended before forking")
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


def _send(conn, request, fds=()):
    data = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(data)) + data], list(fds))


# The server's side.

def serve(path):
    """Import TensorFlow, then fork a child per request until stdin closes (the process that started it ended)."""
    from tfgraphs.tfimport import import_tensorflow

    # Ctrl-C reaches the whole group: the requester ends its children, and this server when it ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import_tensorflow()   # the point: every child starts with it imported, and with nothing else done
    mapped = pagetables.mapped_pages()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".new")
    listener.listen(64)
    os.rename(path + ".new", path)   # a requester that finds the socket finds it listening
    children, conns = {}, {}   # pidfd -> (pid, conn); conn -> pidfd
    registry = os.path.join(os.path.dirname(path), "running")
    while True:
        ready = select.select([sys.stdin, listener, *conns, *children], [], [])[0]
        if sys.stdin in ready and not sys.stdin.buffer.read1(1):
            for pid, _ in children.values():
                os.kill(pid, signal.SIGKILL)
            return
        if listener in ready:
            conn = listener.accept()[0]
            try:
                request, fds = _receive(conn)
            except (OSError, ValueError, struct.error):   # a requester that left before asking
                conn.close()
                continue
            pid = _fork(request, fds, [conn, listener, *conns, *children], mapped)
            _write(os.path.join(registry, str(pid)), [sys.executable, "-m", *request["argv"]], request["env"])
            pidfd = os.pidfd_open(pid)
            children[pidfd], conns[conn] = (pid, conn), pidfd
            conn.sendall(f"{pid}\n".encode())
        for conn in [c for c in ready if c in conns]:
            _signal(conn, conns)
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
        _child(request, fds, inherited, server)
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


def _child(request, fds, inherited, server):
    """In the forked child: end with the server, then become `python -m MODULE ARGS` started by the requester."""
    import ctypes
    import runpy

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:   # the server ended before the request was made
        os._exit(1)
    for held in inherited:   # the server's sockets and pidfds
        held.close() if hasattr(held, "close") else os.close(held)
    sys.stdin.close()
    if request["sid"] == os.getsid(0):   # a group of another session cannot be joined
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


if __name__ == "__main__":
    serve(sys.argv[1])
    os._exit(0)   # its children have ended: skip TensorFlow's teardown
