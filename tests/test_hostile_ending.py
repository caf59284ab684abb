"""What a user's code leaves running is ended one way, whoever ends it (watch's session, watch's adopted orphans, a
lab check's tree): SIGTERM, SIGKILL for what is left after the grace, each named and none left a zombie."""

import os
import signal
import subprocess
import time

import psutil
import pytest

from tfgraphs import usercode
from tfgraphs.labs import confine

# A shell that ignores SIGTERM, as its sleep does (a signal ignored stays ignored in a child): only SIGKILL ends them.
STUBBORN = ["sh", "-c", "trap '' TERM; sleep 30 & wait; sleep 30"]


def gone(pid):
    """True when pid runs no more, and is no zombie this process has to collect."""
    try:
        proc = psutil.Process(pid)
        return proc.status() == psutil.STATUS_ZOMBIE and proc.ppid() != os.getpid()
    except psutil.NoSuchProcess:
        return True


def running_sleep(parent, count=1, wait_s=30):
    """Wait until count processes below parent run sleep (a shell's child is named sh until it has exec'd)."""
    deadline = time.monotonic() + wait_s
    while sum(p.name() == "sleep" for p in parent.children(recursive=True)) < count:
        assert time.monotonic() < deadline
        time.sleep(0.02)


@pytest.fixture
def calls(monkeypatch):
    """The calls of usercode.end_processes, by whichever ender made them."""
    seen, real = [], usercode.end_processes

    def recorded(find, *args, **kwargs):
        ended = real(find, *args, **kwargs)
        seen.append(ended)
        return ended
    monkeypatch.setattr(usercode, "end_processes", recorded)
    return seen


def test_sigterm_then_sigkill_after_the_grace_each_named_and_collected():
    polite, stubborn = subprocess.Popen(["sleep", "30"]), subprocess.Popen(STUBBORN)
    running_sleep(psutil.Process(stubborn.pid))   # its trap is set
    found = [psutil.Process(p.pid) for p in (polite, stubborn)]
    ended = usercode.end_processes(lambda: found, grace_s=0.5)
    assert ended == sorted([(polite.pid, "sleep"), (stubborn.pid, "sh")])
    assert gone(polite.pid) and gone(stubborn.pid)   # collected here: no zombie left


def test_a_session_left_running_is_ended_through_it(calls):
    with usercode.grouped(STUBBORN, grace_s=0.5) as group:
        running_sleep(psutil.Process(group.proc.pid))
        os.kill(group.proc.pid, signal.SIGKILL)   # the session's leader ends, its sleep is left running
    assert len(calls) == 1 and [name for _pid, name in group.ended] == ["sleep"]


def test_an_adopted_daemon_is_ended_through_it(calls):
    with usercode.adopting(grace_s=0.5) as adopted:
        subprocess.run(["sh", "-c", "setsid sleep 30 > /dev/null 2>&1 &"], check=True)
        running_sleep(psutil.Process())
    assert len(calls) == 1 and [name for _pid, name in adopted] == ["sleep"] and gone(adopted[0][0])


def test_a_lab_childs_tree_is_ended_through_it(calls):
    root = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    running_sleep(psutil.Process(root.pid), 2)
    ended = confine.end_tree(root.pid)
    root.kill()
    root.wait()
    assert len(calls) == 1 and [name for _pid, name in ended] == ["sleep", "sleep"]
    assert all(gone(pid) for pid, _name in ended)
