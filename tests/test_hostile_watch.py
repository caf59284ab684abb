"""Hostile scripts under `tfgraphs watch`: the exit status a shell shows for `python SCRIPT`, and no process left.

Each script is tiny and never imports TensorFlow; each runs once under real python and once under watch
(tfgraphs.cli.main in this process: the script runs in its worker, as from the command line).
"""

import os
import subprocess
import sys

import psutil
import pytest

from conftest import run_main
from tfgraphs import usercode

NO_CORE = "import resource\nresource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # no core file left in the folder\n"
# The --out path of watch's worker, read by a script that writes over it; None under plain python.
OUT_PATH = ("args = open('/proc/self/cmdline', 'rb').read().split(b'\\0')\n"
            "out = args[args.index(b'--out') + 1].decode() if b'--out' in args else None\n")

# (name, the script, what watch's stdout or stderr also says)
CASES = [
    ("sigkill", "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "was killed by SIGKILL (exit status 137)"),
    ("sigterm", "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n", "was killed by SIGTERM (exit status 143)"),
    ("sigsegv", NO_CORE + "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
     "was killed by SIGSEGV (exit status 139)"),
    ("abort", NO_CORE + "import os\nos.abort()\n", "was killed by SIGABRT (exit status 134)"),
    ("exit-2**70", "import sys\nsys.exit(2**70)\n", "exited with status 255"),
    ("exit-text", "import sys\nsys.exit('text')\n", "exited with status 1"),
    ("fork-parent-os-exit-7", "import os\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n    os._exit(7)\n",
     "ended with status 7 before saying what it saw"),
    ("leaves-sleep", "import subprocess\nopen('sleep.pid', 'w').write(str(subprocess.Popen(['sleep', '30']).pid))\n",
     "tfgraphs watch: ended 1 process the script left running (pid {printed}: sleep)"),
    ("argv0", "import sys\nprint(sys.argv[0], __file__)\n", "argv0.py ran to its end"),
    ("overwrites-document",
     OUT_PATH + "import atexit\nif out:\n    atexit.register(lambda: open(out, 'w').write('[]'))\n",
     "what the watched process left was not a watch document (it holds a JSON list)"),
]


def shell_status(returncode):
    """What `bash -c 'python SCRIPT; echo $?'` prints for a subprocess's returncode: 128 + N for signal N."""
    return returncode if returncode >= 0 else 128 - returncode


@pytest.mark.parametrize("name, source, said", CASES, ids=[c[0] for c in CASES])
def test_watch_exits_as_python_would_and_leaves_nothing_running(tmp_path, monkeypatch, capfd, name, source, said,
                                                               own_servers):
    """The script starts fresh, as the product starts it: its /proc/self/cmdline and its orphans are its own."""
    script = os.path.join("sub", f"{name}.py")   # relative, as a user types it: sys.argv[0] keeps it so
    (tmp_path / "sub").mkdir()
    (tmp_path / script).write_text(source)
    monkeypatch.chdir(tmp_path)
    python = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    python.wait()
    usercode.end_session(python.pid)   # what plain python left running (the sleep, holding its stdout open)
    out, err = python.communicate()
    before = len(psutil.Process().children(recursive=True))
    watched = run_main(capfd, "watch", "--quiet", script)
    assert watched.returncode == shell_status(python.returncode), watched.stderr
    assert watched.stdout.startswith(out) and err in watched.stderr, (out, err, watched)
    printed = (tmp_path / "sleep.pid").read_text() if name == "leaves-sleep" else None
    assert said.format(printed=printed) in " ".join((watched.stdout + watched.stderr).split())
    assert len(psutil.Process().children(recursive=True)) == before
    if printed:
        assert not [p for p in psutil.process_iter(["status"]) if p.pid == int(printed)
                    and p.info["status"] != psutil.STATUS_ZOMBIE]


def test_a_fifo_is_not_a_regular_file(tmp_path, capfd):
    os.mkfifo(tmp_path / "fifo")
    watched = run_main(capfd, "watch", tmp_path / "fifo")
    assert (watched.returncode, watched.stderr) == (
        2, f"tfgraphs: {tmp_path}/fifo is not a regular file (a device, FIFO or socket); give the Python script to "
           "run\n")
