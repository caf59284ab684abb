"""Child processes that end with the tfgraphs process that started them, even when it is killed by SIGKILL."""

import ctypes
import os
import signal
import subprocess
import sys

PR_SET_PDEATHSIG = 1   # linux/prctl.h
# Looked up here, in the parent: loading a library between fork and exec could wait on a lock another thread held.
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None


def _dies_with(parent):
    """In the child, before exec: ask the kernel for SIGKILL when the parent ends, and end now if it already has."""
    def arrange():
        _PRCTL(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)
    return arrange


def start(argv, **kwargs):
    """subprocess.Popen(argv), the child bound to end with this process (Linux; elsewhere it is ended on exit)."""
    if _PRCTL is not None:
        kwargs["preexec_fn"] = _dies_with(os.getpid())
    return subprocess.Popen(argv, **kwargs)
