"""gRPC servers tfgraphs starts on 127.0.0.1, one process per task, always ended by their own process ids, in a
private network: TensorFlow's gRPC server listens on every interface (0.0.0.0), so on Linux this process first moves
into a network namespace of its own, where loopback is the only interface."""

import ctypes
import fcntl
import json
import os
import selectors
import socket
import struct
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass

from tfgraphs import processes
from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.processes import to_argv
from tfgraphs.spec.network import LOOPBACK, ServerTask, cluster_text

# A server's process imports TensorFlow before it serves; on a busy 2-core machine that alone can take 20 s.
START_TIMEOUT_S = 120.0
STOP_GRACE_S = 5.0
_warned = []


class ServerError(RuntimeError):
    """A server tfgraphs started did not come up, or went away."""


@dataclass
class Cluster:
    """Running servers: their processes and grpc:// targets, by job."""

    procs: dict
    targets: dict

    def gone(self):
        """Why the cluster can no longer serve (a server exited), or None while every server runs."""
        for job, proc in self.procs.items():
            if proc.poll() is not None:
                return f"server {job} (pid {proc.pid}) exited with status {proc.returncode} during the run"
        return None


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@contextmanager
def started(jobs, start_timeout=START_TIMEOUT_S):
    """One server per job (task 0) in one ClusterSpec on 127.0.0.1 free ports; all ended on leaving, however left."""
    exposed = enter_private_network()
    if exposed and not _warned:
        # TensorFlow binds 0.0.0.0 whatever address the cluster names; say so once when it cannot be fenced in.
        print(f"tfgraphs: warning: the local servers listen on every interface, not only 127.0.0.1: {exposed}",
              file=sys.stderr)
        _warned.append(True)
    cluster = cluster_text({job: f"{LOOPBACK}:{free_port()}" for job in jobs})
    procs = {}
    try:
        for job in jobs:
            procs[job] = _spawn(ServerTask(cluster=cluster, job=job, task=0))
        deadline = time.monotonic() + start_timeout
        targets = {job: _ready(job, proc, deadline) for job, proc in procs.items()}
        yield Cluster(procs, targets)
    finally:
        stop(procs.values())


def _spawn(task):
    """Start a server's process, its stderr kept in a file for the message if it fails to serve."""
    errors = tempfile.TemporaryFile(mode="w+")
    # The measuring workers' environment, so that both are forked from one server.
    proc = processes.start([sys.executable, *to_argv(task)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=errors, text=True, env=runner.environment())
    proc.error_file = errors
    return proc


def _ready(job, proc, deadline):
    """The target a server prints once it serves; ServerError if it exits or stays silent until the deadline."""
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if sel.select(timeout=min(0.5, max(0.0, deadline - time.monotonic()))):
                line = proc.stdout.readline()
                if line:
                    return json.loads(line)["target"]
            if proc.poll() is not None:
                proc.error_file.seek(0)
                tail = [ln for ln in proc.error_file.read().splitlines() if ln.strip()][-1:]
                raise ServerError(f"server {job} exited with status {proc.returncode} before serving"
                                  + (f": {tail[0][:300]}" if tail else ""))
    raise ServerError(f"server {job} (pid {proc.pid}) did not start serving in time")


def stop(procs):
    """End each process still running by its own pid: SIGTERM, then SIGKILL after a grace period; reap it."""
    procs = list(procs)
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, getattr(proc, "error_file", None)):
            if stream is not None:
                stream.close()


def unreachable(host, port, timeout):
    """Why host:port accepts no TCP connection within timeout seconds, or None once it does."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=max(0.1, min(left, 2.0))):
                return None
        except OSError as exc:
            if time.monotonic() + 0.2 >= deadline:
                return exc.strerror or type(exc).__name__
            time.sleep(0.2)


def check_reachable(target, timeout):
    """UsageError naming the target unless it accepts a connection within timeout seconds."""
    why = unreachable(target.host, target.port, timeout)
    if why:
        raise UsageError(f"cannot reach {target.spec} within {timeout:g} s ({why}); start a server there, "
                         f"e.g. `tfgraphs server --port {target.port}`, or use --target local")


def watch_address(host, port, every_s=2.0):
    """A check for the runner: why host:port stopped accepting connections, at most every `every_s` seconds."""
    last = [time.monotonic()]

    def gone():
        if time.monotonic() - last[0] < every_s:
            return None
        last[0] = time.monotonic()
        why = unreachable(host, port, 1.0)
        return f"server {host}:{port} stopped accepting connections during the run ({why})" if why else None
    return gone


# The private network the servers listen in.
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
# Set to the namespace's inode once entered: a process started inside it (a command run by another) is there already.
ENTERED = "TFGRAPHS_PRIVATE_NETWORK"
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
_entered = []   # set once this process is in its own network namespace


def _unshare(flags):
    """Move this process into the new namespaces flags name (unshare(2)); OSError when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def _map_ids(uid, gid):
    """Keep this process's own user and group inside a new user namespace, so its files stay its own."""
    for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                       ("/proc/self/gid_map", f"{gid} {gid} 1")):
        with open(path, "w") as f:
            f.write(text)


def _loopback_up():
    """Bring up the loopback interface, down in a new network namespace."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | IFF_UP, b""))


def enter_private_network():
    """Move this process, and every process it starts from now on, into a network namespace with loopback only.

    Returns why it could not (not Linux, no permission for namespaces), or None once inside.
    """
    if _entered:
        return None
    if not sys.platform.startswith("linux"):
        return "network namespaces are a Linux feature"
    if os.environ.get(ENTERED) == str(os.stat("/proc/self/ns/net").st_ino):
        _entered.append(True)
        return None
    uid, gid = os.getuid(), os.getgid()
    try:
        try:
            _unshare(CLONE_NEWNET)                      # root may do this directly
        except PermissionError:
            _unshare(CLONE_NEWUSER | CLONE_NEWNET)      # others through a user namespace of their own
            _map_ids(uid, gid)
        _loopback_up()
    except OSError as exc:
        return f"no private network namespace ({exc.strerror or exc})"
    _entered.append(True)
    os.environ[ENTERED] = str(os.stat("/proc/self/ns/net").st_ino)
    return None
