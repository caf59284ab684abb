"""A worker forked by the worker server (tfgraphs.forkserver), as the process that asked for it holds it, and the
messages the two exchange: a request with the asker's descriptors, the child's pid, its exit status, signals."""

import json
import os
import select
import signal
import socket
import struct
import subprocess
import time

HEADER = struct.Struct("!I")
# Environment variables read while TensorFlow, Python or the C libraries load: a server per distinct set of them.
LOAD_TIME = ("TF_", "CUDA", "OMP_", "KMP_", "MKL", "GRPC", "XLA", "PYTHON", "LD_", "MALLOC")


def load_time(env):
    """The part of an environment that TensorFlow, Python and the C libraries read as they load."""
    return {k: v for k, v in env.items() if k.startswith(LOAD_TIME)}


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
        self._unread = b""
        try:
            send(conn, {"argv": argv[2:], "env": dict(os.environ if env is None else env), "cwd": os.getcwd(),
                        "sid": os.getsid(0), "pgid": os.getpgid(0)}, fds)
            line = self._line(None)
            if not line.isdigit():
                raise RuntimeError("the worker server ended before forking")
        except (OSError, RuntimeError):
            # children.start starts this one fresh instead: none of this attempt's pipes may stay open.
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


def send(conn, request, fds=()):
    data = json.dumps(request).encode()
    socket.send_fds(conn, [HEADER.pack(len(data)) + data], list(fds))
