"""A Jupyter kernel for the tests: ipykernel forked from the session's worker server, this process passing on signals.

The kernel spec conftest writes starts this script where `python -m ipykernel_launcher -f FILE` would be started;
the kernel is a fresh ipykernel in a process forked after TensorFlow's import, and ends with this one.
"""

import os
import signal
import sys

from tfgraphs import processes

# The server's environment: what a measuring worker gets (TensorFlow's C++ start-up lines held back).
env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
server = os.path.join(os.environ[processes.SERVERS], processes.key(env) + ".sock")
kernel = processes.Forked(processes.connect(server), [sys.executable, "-m", "ipykernel_launcher", *sys.argv[1:]],
                           env=env)
# Jupyter interrupts a kernel with SIGINT to its process group, and ends it with SIGTERM, then SIGKILL.
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2):
    signal.signal(number, lambda sig, frame: kernel.send_signal(sig))
code = kernel.wait()
if code < 0:   # killed by a signal: end the same way
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
