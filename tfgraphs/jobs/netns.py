"""A private network for the servers tfgraphs starts: TensorFlow's gRPC server listens on every interface (0.0.0.0),
so on Linux this process moves into a network namespace of its own, where loopback is the only interface."""

import ctypes
import fcntl
import os
import socket
import struct
import sys

CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
# Set to the namespace's inode once entered: a process started inside it (a command run by another) is there already.
ENTERED = "TFGRAPHS_PRIVATE_NETWORK"
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
_entered = []   # set once this process is in its own network namespace


def _unshare(flags):
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
