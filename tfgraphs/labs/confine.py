"""What a student's code may not do to its judge, and how everything it starts is found and ended.

The process running a student's code (the lab check's child, lab 7's watched script) first confines itself: it
becomes the reaper of every orphan below it (PR_SET_CHILD_SUBREAPER), so a double-forked, setsid daemon stays its
descendant, and installs a seccomp filter (Linux, x86-64 and arm64) under which no process it starts may signal, trace
or write into the judge and its ancestors, nor give up being that reaper. The judge freezes that process, ends its
descendants, then the process, and names them (end_tree); it reaps what was reparented to itself (ended_orphans).
"""

import ctypes
import os
import platform
import signal
import struct
from contextlib import contextmanager

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 38, 22, 36, 37   # linux/prctl.h
SECCOMP_MODE_FILTER = 2
ALLOW, DENY = 0x7FFF0000, 0x00050000 | 1   # SECCOMP_RET_ALLOW; SECCOMP_RET_ERRNO with EPERM
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06   # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
X32 = 0x40000000   # the x32 ABI's calls carry this bit
# (audit architecture, syscalls whose first argument is a pid to protect, syscalls refused outright, prctl)
SYSCALLS = {
    "x86_64": (0xC000003E, {"kill": 62, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297},
               {"tkill": 200, "ptrace": 101, "process_vm_writev": 311, "pidfd_send_signal": 424,
                "pidfd_getfd": 438}, 157),
    "aarch64": (0xC00000B7, {"kill": 129, "tgkill": 131, "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240},
                {"tkill": 130, "ptrace": 117, "process_vm_writev": 271, "pidfd_send_signal": 424,
                 "pidfd_getfd": 438}, 167),
}
ENDING_ROUNDS = 20   # a tree that forks while it is ended is walked again, this many times at most


def _prctl():
    """prctl(2), its five arguments as unsigned longs (a pointer among them)."""
    call = ctypes.CDLL(None, use_errno=True).prctl
    call.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    return call


def ancestors(pid):
    """pid and every process above it, up to (not including) init."""
    found = []
    while pid > 1:
        found.append(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def _program(arch, signalling, refused, prctl, protected):
    """The BPF program: EPERM for a signal to a protected pid or group, for every refused call, for another ABI's
    calls, and for giving up being a reaper; everything else allowed."""
    ops = [(LD_ABS, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, DENY), (LD_ABS, 0, 0, 0), (JGE, 0, 1, X32),
           (RET, 0, 0, DENY)]
    for number in refused.values():
        ops += [(JEQ, 0, 1, number), (RET, 0, 0, DENY)]
    ops += [(JEQ, 0, 4, prctl), (LD_ABS, 0, 0, 16), (JEQ, 0, 1, PR_SET_CHILD_SUBREAPER), (RET, 0, 0, DENY),
            (RET, 0, 0, ALLOW)]
    numbers = list(signalling.values())
    ops += [(JEQ, len(numbers) - i, 0, n) for i, n in enumerate(numbers)]
    ops += [(RET, 0, 0, ALLOW), (LD_ABS, 0, 0, 16)]
    # The first argument: a pid, or minus a process group, or -1 (every process the caller may signal).
    for value in sorted({p & 0xFFFFFFFF for pid in protected for p in (pid, -pid)} | {0xFFFFFFFF}):
        ops += [(JEQ, 0, 1, value), (RET, 0, 0, DENY)]
    ops.append((RET, 0, 0, ALLOW))
    return ops


def confine(protected):
    """In the process about to run a student's code: reap its orphans, and let nothing it starts signal, trace or
    write into the pids protected (the judge and its ancestors). False where the kernel offers no such filter."""
    if not hasattr(os, "getppid") or platform.system() != "Linux":
        return False
    prctl = _prctl()
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    known = SYSCALLS.get(platform.machine())
    if known is None:
        return False
    arch, signalling, refused, prctl_nr = known
    ops = _program(arch, signalling, refused, prctl_nr, protected)
    code = b"".join(struct.pack("HBBI", *op) for op in ops)
    buffer = ctypes.create_string_buffer(code)

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = Program(len(ops), ctypes.addressof(buffer))
    if prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(program), 0, 0) == 0


def _descendants(pid):
    """The live processes below pid."""
    import psutil
    try:
        return [p for p in psutil.Process(pid).children(recursive=True) if _alive(p)]
    except psutil.Error:
        return []


def _alive(proc):
    import psutil
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def end_tree(pid):
    """[(pid, name)] of pid's descendants, each killed, pid frozen first so that it starts no more; pid itself is
    left stopped for its starter to kill and collect."""
    from tfgraphs.usercode import end_processes

    try:
        os.kill(pid, signal.SIGSTOP)
    except OSError:
        return []
    # Each frozen before any is killed: a parent killed first would orphan its children.
    return end_processes(lambda: _descendants(pid), rounds=ENDING_ROUNDS, freeze=True)


def children():
    """The pids of this process's live children."""
    return {p.pid for p in _descendants(os.getpid()) if p.ppid() == os.getpid()}


def _prctl_get():
    """True when this process already reaps the orphans below it."""
    if platform.system() != "Linux":
        return False
    state = ctypes.c_int(0)
    _prctl()(PR_GET_CHILD_SUBREAPER, ctypes.addressof(state), 0, 0, 0)
    return bool(state.value)


def reaping(on):
    """Make this process the reaper of orphans below it (on), or stop being one; False where Linux offers none."""
    if platform.system() != "Linux":
        return False
    return _prctl()(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0


def ended_orphans(known):
    """[(pid, name)] of the processes reparented to this one (its children not in known) and theirs, each ended and
    collected."""
    from tfgraphs.usercode import end_processes

    def orphans():
        below_known = {p.pid for pid in known for p in _descendants(pid)}
        return [p for p in _descendants(os.getpid()) if p.pid not in known and p.pid not in below_known]
    return end_processes(orphans, rounds=ENDING_ROUNDS, freeze=True)


@contextmanager
def reaped(ended):
    """Within: orphans below this process come to it (a double-forked daemon too); on leaving, every one of them is
    ended and added to ended as (pid, name), and this process reaps as it did before."""
    before = _prctl_get()
    known = children()
    on = before or reaping(True)
    try:
        yield
    finally:
        if on:
            ended += ended_orphans(known)
        if not before:
            reaping(False)
