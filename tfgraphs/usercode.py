"""A user's code run in a session, and so a process group, of its own, ended with everything it left running."""

import os
import signal
import threading
import time
from contextlib import contextmanager

from tfgraphs.processes import fresh

# What a terminal sends its foreground group, passed on to a grouped() process, which no terminal reaches directly.
FORWARDED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
                  if hasattr(signal, name))
GRACE_S = 2   # how long a process left running has to end on SIGTERM before it gets SIGKILL


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
    """A Group of subprocess.Popen(argv, **kwargs), a fresh process in a session of its own, bound to end with this
    process. Within, the signals in forward that reach this process go to its group instead; on leaving, the process
    is killed if it still runs, and every process left in its session is ended and listed in the Group's ended."""
    group = Group(fresh(argv, start_new_session=True, **kwargs))
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


def end_session(sid, grace_s=GRACE_S):
    """[(pid, name)] of the processes of session sid, each ended: SIGTERM, then SIGKILL after grace_s."""
    import psutil   # here, not at the top: the command line starts without it
    ended = {}
    # A process forked while the others end is found by the next round.
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 1), (signal.SIGKILL, 1)):
        left = _in_session(sid)
        if not left:
            break
        for proc in left:
            try:
                ended.setdefault(proc.pid, proc.name())
                proc.send_signal(sig)   # psutil checks that the pid is still this process's
            except psutil.Error:
                pass
        deadline = time.monotonic() + wait_s
        while left and time.monotonic() < deadline:
            left = [p for p in left if _alive(p)]
            if left:
                time.sleep(0.02)
    return sorted(ended.items())


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


def _alive(proc):
    """True while proc runs: a zombie has ended."""
    import psutil
    try:
        return proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
