"""Shared helpers: run the CLI as a user would, in a subprocess, or in this process; fork workers; group the files.

Which tests start processes, and why:
- A real measurement (compare, explain, sweep, shapes, pitfalls, unembed, explain --graph) starts a worker process per
  measurement, forked as the product forks it (tfgraphs.processes): here from one server per test process, started
  once for the session (processes.SERVERS names their folder), not one per command. It runs the same module with the
  same argv, environment, descriptors and process group. The runs are module- or session-scoped fixtures that the
  tests of a file (or of several files: compare_json, explain_json) read, not one run per test.
- A watched script (tfgraphs.worker.watch) is forked too, in a session of its own, TensorFlow hidden until it
  imports it (forking/sitecustomize.py); the product starts it fresh. A test of what watch adopts from a script
  asks for own_servers, so that the script is this process's child, as in the product.
- A test about how processes start and end asks for own_servers: the command starts its own server, as a user's does
  (a parent's end, PR_SET_PDEATHSIG; Ctrl-C reaching a watch's group). The command line itself always starts fresh
  (its process never imports TensorFlow).
- Remote sessions start real gRPC servers (test_remote, test_hostile): what is tested is that no server or worker is
  left behind and what crosses the wire; forked ones are found through running().
- `lab check` runs the student's code in a child process (labs.checking): the lab tests keep that child, and judge
  in this process wherever the child's protocol is not what a test is about.
- Notebooks run in real Jupyter kernels (test_lab_notebooks, test_notebook_api), one fresh kernel per notebook:
  ipykernel forked from the session's server, through the kernel spec this session writes (forking/kernel.py).
- The docs' Python blocks run in one interpreter forked for them from the session's server (test_docs, forking/
  doc_blocks.py), each in a fresh namespace.
- The site is built by `mkdocs build --strict` once (built_site), for the docs test and the browser's (test_site).
- A test that needs a process of its own says why: an exit status with stdout and stderr kept apart from a fresh
  interpreter, a signal, a module made unimportable, or what TensorFlow prints while it loads. Every other check of
  the command line runs `tfgraphs.cli.main` in this process (run_main), the code the subprocess would run.
"""

import io
import json
import os
import signal
import subprocess
import sys
import tempfile
from contextlib import contextmanager, nullcontext, redirect_stderr, redirect_stdout

import pytest

from tfgraphs.jobs.servers import enter_private_network

from tfgraphs import processes

# The kernel a notebook test forks, and the probe module test_workers forks; on the path of every process started.
FORKING = os.path.join(os.path.dirname(__file__), "forking")
if FORKING not in os.environ.get("PYTHONPATH", "").split(os.pathsep):
    os.environ["PYTHONPATH"] = os.pathsep.join([FORKING, *filter(None, [os.environ.get("PYTHONPATH")])])
sys.path.insert(0, FORKING)

# TensorFlow's gRPC servers listen on every interface: the tests that start them run only where this process (and so
# every server and worker it starts) has a network of its own, with loopback as its one interface.
PRIVATE_NETWORK = enter_private_network()
needs_private_network = pytest.mark.skipif(
    PRIVATE_NETWORK is not None, reason=f"starts gRPC servers, so needs a private network namespace: {PRIVATE_NETWORK}")

# Files whose tests read a session-scoped run (compare_json, explain_json; built_site; lab 7's watch of a file, which
# labs.under_watch keeps for the process) go to one xdist worker together, so each run happens once.
SHARED_RUNS = {**dict.fromkeys(("test_api.py", "test_compare.py", "test_evidence.py", "test_explain.py",
                                "test_stages.py"), "session_runs"),
               **dict.fromkeys(("test_docs.py", "test_site.py"), "built_site"),
               **dict.fromkeys(("test_labs.py", "test_lab_checks.py"), "lab_checks")}
# The groups that spend longest in TensorFlow processes are handed out first: one of them started last would keep
# its worker busy long after the other has run out of work.
LONGEST_FIRST = ("session_runs", "lab_checks", "test_lab_notebooks.py", "test_remote.py", "test_workers.py",
                 "test_watch.py", "test_shapes.py", "built_site", "test_unembed.py",
                 "test_pitfalls.py", "test_hostile.py")
# The variants of explain_json: every kind of input, the fed ones and the embedded ones, a dataset among them.
EXPLAINED = ("constant", "placeholder", "variable", "dataset-embedded")


# The environment the runner gives a measuring worker (TensorFlow's C++ start-up lines held back): its server's.
WORKERS = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}


def pytest_configure(config):
    """The session's server for measuring workers, started once (before xdist starts its workers, which inherit where
    it is, and its private network); it starts one for any other environment the first time one is asked for."""
    if processes.SERVERS not in os.environ:
        config.server_folder = os.environ[processes.SERVERS] = tempfile.mkdtemp(prefix="tfgraphs-workers-")
        _kernel_spec(config.server_folder)
        config.worker_servers = [processes.start_server(WORKERS, config.server_folder)[0]]


def _kernel_spec(folder):
    """The python3 kernel of this session's notebooks: ipykernel forked from the session's server (kernel.py)."""
    spec = os.path.join(folder, "jupyter", "kernels", "python3")
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w") as f:
        json.dump({"argv": [sys.executable, os.path.join(FORKING, "kernel.py"), "-f", "{connection_file}"],
                   "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}, f)
    os.environ["JUPYTER_PATH"] = os.pathsep.join([os.path.join(folder, "jupyter"),
                                                  *filter(None, [os.environ.get("JUPYTER_PATH")])])


def pytest_unconfigure(config):
    for server in getattr(config, "worker_servers", ()):
        processes.end_server(server, config.server_folder)


def running():
    """{pid: (argv, environment)} of the session's forked workers not yet ended."""
    return processes.running(os.environ[processes.SERVERS])


def words(text):
    """text with every run of whitespace made one space: sentences folded to the width read as one line."""
    return " ".join(text.split())


def interruptible():
    """In a child a test sends SIGINT to: take it as a terminal's Ctrl-C, whatever disposition this process passed on."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(*args, timeout=600):
    """Run `python -m tfgraphs ARGS`; return the CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "tfgraphs", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


class _Printed:
    """capfd's readouterr() for a fixture wider than a test: what Python prints on stdout and stderr."""

    def __init__(self):
        self.out, self.err = io.StringIO(), io.StringIO()

    @contextmanager
    def kept(self):
        with redirect_stdout(self.out), redirect_stderr(self.err):
            yield

    def readouterr(self):
        said = self.out.getvalue(), self.err.getvalue()
        for stream in (self.out, self.err):
            stream.seek(0)
            stream.truncate()
        return said


def run_main(capfd, *args):
    """Run `tfgraphs ARGS` through tfgraphs.cli.main in this process; return a CompletedProcess as run_cli does.
    capfd None (a module's fixture) keeps what Python prints, not what is written to the descriptors."""
    from tfgraphs.cli import main

    argv = [*map(str, args)]
    printed = capfd or _Printed()
    printed.readouterr()
    handlers, environ = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGHUP)}, dict(os.environ)
    try:
        with nullcontext() if capfd else printed.kept():
            code = main(argv)
    except SystemExit as exc:   # argparse refuses and --help ends by exiting, as from the command line
        code = exc.code
    finally:
        # main() makes SIGTERM and SIGHUP unwind and a command may set TensorFlow's log level: this process keeps
        # its own.
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        os.environ.clear()
        os.environ.update(environ)
    out, err = printed.readouterr()
    return subprocess.CompletedProcess(["tfgraphs", *argv], code, out, err)


def xdist_group(path):
    """The unit a test is scheduled in: its file's name, or the name of the shared run its file reads."""
    name = path.rsplit("/", 1)[-1]
    return SHARED_RUNS.get(name, name)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the files of one shared run scheduled as one file."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedRunScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid):
            return xdist_group(super()._split_scope(nodeid))

    return SharedRunScheduling(config, log)


# The session-scoped runs, and the group a file reading one must be in, so that the run is made on one worker only.
SESSION_RUN_GROUPS = {"compare_json": "session_runs", "explain_json": "session_runs", "built_site": "built_site"}


def pytest_collection_modifyitems(config, items):
    misplaced = sorted({f"{item.nodeid.split('::', 1)[0]} reads {name}" for item in items
                        for name in set(item.fixturenames) & set(SESSION_RUN_GROUPS)
                        if xdist_group(item.nodeid.split("::", 1)[0]) != SESSION_RUN_GROUPS[name]})
    if misplaced:
        raise pytest.UsageError(f"add to SHARED_RUNS in tests/conftest.py: {'; '.join(misplaced)}")
    if hasattr(config, "workerinput"):   # an xdist worker: the order collected is the order the units are handed out
        rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(xdist_group(item.nodeid.split("::", 1)[0]), len(rank)))


@pytest.fixture
def own_servers(monkeypatch):
    """A command this test starts forks its workers from a server of its own, as a user's does: what it tests is how
    they start and end."""
    monkeypatch.delenv(processes.SERVERS, raising=False)


@pytest.fixture(scope="session")
def compare_json(tmp_path_factory):
    """One tiny real compare run of the four default variants, shared by the tests that read it."""
    path = tmp_path_factory.mktemp("compare") / "out.json"
    proc = run_cli("compare", "--batch", 20, "--runs", 3, "--json", path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    return path, json.loads(path.read_text()), proc


@pytest.fixture(scope="session")
def explain_json(tmp_path_factory):
    """One tiny real explain run of EXPLAINED, default and bare, one trial, traced and boarded: (folder, doc, proc)."""
    root = tmp_path_factory.mktemp("explain")
    proc = run_cli("explain", "--batch", 20, "--runs", 2, "--trials", 1, "--presets", "default,bare", "--variants",
                   ",".join(EXPLAINED), "--trace", root / "traces", "--tensorboard", root / "tb", "--json",
                   root / "e.json", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root, json.loads((root / "e.json").read_text()), proc



@pytest.fixture(scope="session")
def built_site(tmp_path_factory):
    """The docs site, built once by `mkdocs build --strict` as scripts/check_site.py builds it: (folder, process)."""
    site = tmp_path_factory.mktemp("site") / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), capture_output=True,
                          text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"}, timeout=300)
    return site, proc
