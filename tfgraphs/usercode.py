"""A user's code run in a session, and so a process group, of its own, ended with everything it left running; and
how any processes a user's code left are ended, named."""

import collections
import ctypes
import os
import signal
import threading
import time
from contextlib import contextmanager

from tfgraphs import processes
from tfgraphs.processes import PRCTL

# What a terminal sends its foreground group, passed on to a grouped() process, which no terminal reaches directly.
FORWARDED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
                  if hasattr(signal, name))
GRACE_S = 2   # how long a process left running has to end on SIGTERM before it gets SIGKILL
KILL_WAIT_S = 1   # how long a process is waited for after SIGKILL (a stopped or exiting one ends in far less)
PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER = 36, 37   # linux/prctl.h


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
    """A Group of processes.start(argv, **kwargs), a process in a session of its own, bound to end with this
    process. Within, the signals in forward that reach this process go to its group instead; on leaving, the process
    is killed if it still runs, and every process left in its session is ended and listed in the Group's ended."""
    group = Group(processes.start(argv, start_new_session=True, **kwargs))
    # Outside the main thread no handler can be set: the signals stay this process's.
    previous = ({sig: signal.signal(sig, lambda number, frame: group.signal(number)) for sig in forward}
                if threading.current_thread() is threading.main_thread() else {})
    try:
        yield group
    finally:
        try:
            group.end(grace_s)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, signal.SIG_DFL if handler is None else handler)


def end_processes(find, grace_s=GRACE_S, rounds=3, freeze=False):
    """[(pid, name)] of the processes find() returns, each ended: SIGTERM, then SIGKILL to those left after grace_s;
    find() is asked again each round (a process forked while the others end is found by the next), SIGKILL from the
    second. freeze: each is stopped (SIGSTOP) before any is signalled, so that none forks or reparents its children
    as it ends, and killed at once (a stopped process takes no SIGTERM). This process's children are collected."""
    import psutil   # here, not at the top: the command line starts without it
    named = {}
    for round_ in range(rounds):
        left = [p for p in find() if _alive(p)]
        if not left:
            break
        ending = signal.SIGTERM if round_ == 0 and grace_s > 0 and not freeze else signal.SIGKILL
        for sig in (signal.SIGSTOP, ending) if freeze else (ending,):
            for proc in left:
                try:
                    named.setdefault(proc.pid, proc.name())
                    proc.send_signal(sig)   # psutil checks that the pid is still the process found
                except psutil.Error:
                    pass
        _wait_ended(left, grace_s if ending == signal.SIGTERM else KILL_WAIT_S)
    return sorted(named.items())


def _wait_ended(procs, wait_s):
    """Wait up to wait_s for procs to end, collecting those that are this process's children."""
    import psutil
    deadline = time.monotonic() + wait_s
    while procs:
        _gone, procs = psutil.wait_procs(procs, timeout=0)   # a child that ended is collected here
        procs = [p for p in procs if _alive(p) or _mine(p)]   # another's zombie has ended: its parent collects it
        if not procs or time.monotonic() >= deadline:
            return
        time.sleep(0.02)


def end_session(sid, grace_s=GRACE_S):
    """[(pid, name)] of the processes of session sid, each ended (end_processes)."""
    return end_processes(lambda: _in_session(sid), grace_s)


@contextmanager
def adopting(grace_s=GRACE_S):
    """Within, this process adopts the orphans of the processes it starts (a child subreaper, on Linux), whatever
    session they made; on leaving, the list yielded holds [(pid, name)] of those still running, each ended
    (end_processes) and collected."""
    ended = []
    if PRCTL is None:
        yield ended
        return
    import psutil
    me, was = psutil.Process(), ctypes.c_int()
    before = {child.pid for child in me.children()}
    PRCTL(PR_GET_CHILD_SUBREAPER, ctypes.byref(was), 0, 0, 0)
    PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    try:
        yield ended
    finally:
        try:
            ended += end_processes(lambda: _adopted(me, before), grace_s, rounds=2)
        finally:
            PRCTL(PR_SET_CHILD_SUBREAPER, was.value, 0, 0, 0)


def _adopted(me, before):
    """The processes below me, but not below the children it had before."""
    import psutil
    found = []
    for child in me.children():
        if child.pid not in before:
            try:
                found += [child, *child.children(recursive=True)]
            except psutil.Error:   # it ended while being looked at
                pass
    return found


class Tail(collections.deque):
    """The last lines of a text stream (each cut at line_chars), read to its end by a daemon thread: a process that
    floods its output costs this one no more memory than that."""

    def __init__(self, stream, lines=64, line_chars=4096):
        super().__init__(maxlen=lines)
        self.reader = threading.Thread(target=self._read, args=(stream, line_chars), daemon=True)
        self.reader.start()

    def _read(self, stream, line_chars):
        try:
            for line in iter(lambda: stream.readline(line_chars), ""):
                self.append(line)
        except (OSError, ValueError):
            pass   # the stream was closed under the reader: what was kept stays

    def finished(self, wait_s=5.0):
        """Itself, once the stream has ended or wait_s has passed (a process it left may hold the stream open)."""
        self.reader.join(wait_s)
        return self


def tree_rss(pid):
    """The resident bytes of process pid and every process below it, 0 once it has ended."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    held = 0
    for proc in procs:
        try:
            held += proc.memory_info().rss
        except psutil.Error:
            pass   # ended between the listing and the reading
    return held


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


def _mine(proc):
    """True when proc is this process's child (a zombie of which this process has to collect)."""
    import psutil
    try:
        return proc.ppid() == os.getpid()
    except psutil.Error:
        return False


def _alive(proc):
    """True while proc runs: a zombie has ended."""
    import psutil
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
