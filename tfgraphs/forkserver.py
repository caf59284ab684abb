"""A server that imported TensorFlow and did nothing else, forking one fresh worker per request (Linux).

`python -m tfgraphs.forkserver SOCKET` imports TensorFlow, listens on SOCKET, and forks a child per request: the child
takes the requester's stdin, stdout, stderr, folder, environment and process group and runs `python -m MODULE ARGS`
as a fresh interpreter would, with no graph, session, thread pool or allocator of anyone's. A child ends with its
requester's connection and with the server (PR_SET_PDEATHSIG); the server ends when its stdin closes, and with its
owner. /proc shows a child as the server: tfgraphs.forked.running() says what each child runs, and with what
environment.
"""

import ctypes
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys

from tfgraphs import pagetables
from tfgraphs.forked import HEADER, load_time

PR_SET_PDEATHSIG = 1   # linux/prctl.h
# Looked up here, in the parent: loading a library between fork and exec could wait on a lock another thread held.
PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


# Starting processes bound to this one.

def _dies_with(parent):
    """In the child, before exec: ask the kernel for SIGKILL when the parent ends, and end now if it already has."""
    def arrange():
        PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return arrange


def bound(argv, **kwargs):
    """subprocess.Popen(argv), the child bound to end with this process (Linux; elsewhere it is ended on exit)."""
    if PRCTL is not None:
        kwargs["preexec_fn"] = _dies_with(os.getpid())
    return subprocess.Popen(argv, **kwargs)


def spawn(path, env):
    """A server at path importing TensorFlow with env, logging to a file beside its socket; it ends when its stdin
    closes, and with this process."""
    with open(path + ".log", "w") as log:
        return bound([sys.executable, "-m", "tfgraphs.forkserver", path], stdin=subprocess.PIPE,
                     stdout=subprocess.DEVNULL, stderr=log, env=dict(env))


# The server's side.

def serve(path):
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
                    others[request["start"]] = spawn(request["start"], env)
                conn.close()   # it is importing TensorFlow: its socket appears once it listens
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
    import runpy

    PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
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
