"""The watch job: a user's script, run unchanged in a fresh process with the hooks on, and what they saw."""

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

from tfgraphs import children
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc
from tfgraphs.jobs import runner
from tfgraphs.jobs.plan import Plan
from tfgraphs.records.schema import read_worker
from tfgraphs.records.watch import Watching
from tfgraphs.spec import options
from tfgraphs.spec.options import REQUIRED, Option, arguments, byte_size, switch
from tfgraphs.spec.watch import MODULE, WATCHED_BYTES

# Seconds a script has, after Ctrl-C, to write what was seen before it is killed.
AFTER_INTERRUPT_S = 30


@dataclass(frozen=True)
class Config:
    """The script, its arguments, and what to watch for."""

    script: str = Option(REQUIRED, options.path, "the Python script to run, as `python SCRIPT ARGS...` would",
                         metavar="SCRIPT", positional=True).field()
    args: tuple = Option((), arguments, "the script's own arguments, passed on unchanged", metavar="ARGS",
                         rest=True).field()
    tf1: bool = Option(False, switch, "run a script written for TensorFlow 1.x unchanged: `import tensorflow` "
                       "gives tf.compat.v1, with v2 behaviour disabled").field()
    min_bytes: int = Option(WATCHED_BYTES, byte_size, "name each Const, and each array fed, of at least SIZE bytes; "
                            "units B, kB, MB, GB, KiB, MiB, GiB", metavar="SIZE", shown="1MiB").field()


def plan(config):
    """Refuse a script that is not a file, before anything starts; one process runs it."""
    if not os.path.isfile(config.script):
        what = "is a folder" if os.path.isdir(config.script) else "does not exist"
        raise UsageError(f"{config.script} {what}; give the Python script to run")
    return Plan({}, (), workers=1)


def argv(config, out):
    """The worker's command line: its document goes to out, then `--` and the script as `python` would get it."""
    return [sys.executable, "-m", MODULE, "--out", out, "--min-bytes", str(config.min_bytes),
            *(["--tf1"] if config.tf1 else []), "--", config.script, *config.args]


def run(config, plan, progress, timeout=None):
    """Run the script with the terminal's own stdin, stdout and stderr; its exit status and what was seen."""
    with tempfile.TemporaryDirectory(prefix="tfgraphs-watch-") as held:
        out = os.path.join(held, "watch.json")
        progress.say(os.path.basename(config.script), "running under watch")
        # The script's environment is the user's, as `python SCRIPT` would get it: TensorFlow logs what it would.
        proc = children.start(argv(config, out), env=dict(os.environ))
        try:
            code = _wait(proc, timeout)
        finally:
            if proc.poll() is None:   # the parent failing must not leave the script running
                proc.kill()
                proc.wait()
        doc = read_doc(out) if os.path.exists(out) else _lost(code)
    tf_version, machine = runner.envelope([doc])
    found = Watching.from_dict({**read_worker(Watching, doc), "tf_version": doc.get("tf_version") or tf_version,
                                "machine": machine, "script": os.path.abspath(config.script),
                                "argv": [config.script, *config.args]})
    # from_dict has diagnosed what was seen; only a process that wrote no document lacks its exit status.
    return found if found.exit_code is not None else replace(found, exit_code=code)


def _wait(proc, timeout):
    """The script's exit status; on Ctrl-C it is passed on (a terminal's Ctrl-C reached the script already)."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
    except KeyboardInterrupt:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)   # a second Ctrl-C must not lose the document
        try:
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            try:
                return proc.wait(AFTER_INTERRUPT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                return proc.wait()
        finally:
            signal.signal(signal.SIGINT, previous)


def _lost(code):
    """The document of a watch process that ended without writing one."""
    return {"status": "failed", "error": f"the watched process ended with status {code} before saying what it saw",
            "exit_code": code}
