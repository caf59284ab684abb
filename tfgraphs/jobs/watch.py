"""The watch job: a user's script, run unchanged in a fresh process with the hooks on, and what they saw."""

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

from tfgraphs import usercode
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.one_record import Watching
from tfgraphs.records.schema import read_worker
from tfgraphs.spec import options
from tfgraphs.spec.options import REQUIRED, Option, arguments, byte_size, switch
from tfgraphs.spec.owngraph import WATCH_MODULE, WATCHED_BYTES


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
        what = ("is a folder" if os.path.isdir(config.script) else
                "is not a regular file (a device, FIFO or socket)" if os.path.exists(config.script) else
                "does not exist")
        raise UsageError(f"{config.script} {what}; give the Python script to run")
    return Plan({}, (), workers=1)


def argv(config, out):
    """The worker's command line: its document goes to out, then `--` and the script as `python` would get it."""
    return [sys.executable, "-m", WATCH_MODULE, "--out", out, "--min-bytes", str(config.min_bytes),
            *(["--tf1"] if config.tf1 else []), "--", config.script, *config.args]


def run(config, plan, progress, timeout=None):
    """Run the script with the terminal's own stdin, stdout and stderr; its exit status and what was seen. The script
    runs in a session of its own: what it leaves running is ended once it ends, and named."""
    with tempfile.TemporaryDirectory(prefix="tfgraphs-watch-") as held:
        out = os.path.join(held, "watch.json")
        progress.say(os.path.basename(config.script), "running under watch")
        # The script's environment is the user's, as `python SCRIPT` would get it: TensorFlow logs what it would.
        # What it starts in a session of its own is adopted here once its parent ends, and ended with the rest.
        with usercode.adopting() as adopted:
            with usercode.grouped(argv(config, out), env=dict(os.environ)) as group:
                code = _wait(group.proc, timeout)
        left = sorted(dict(group.ended + adopted).items())
        if left:
            print(f"tfgraphs watch: ended {usercode.listed(left, 'the script left running')}", file=sys.stderr)
        doc = _read(out, code)
    try:
        found = _result(config, doc)
    except ValueError as exc:   # a document of the right keys holding values no watch writes
        found = _result(config, _unreadable(exc))
    # The exit status is the process's own, as a shell shows it for `python SCRIPT`: 128 + N for signal N.
    return replace(found, exit_code=code if code >= 0 else 128 - code, ended="killed" if code < 0 else found.ended,
                   left_running=tuple({"pid": pid, "name": name} for pid, name in left))


def _wait(proc, timeout):
    """The script's exit status (-N for signal N); Ctrl-C meanwhile goes to the script's group (usercode.grouped)."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def _read(out, code):
    """The worker's document at out, or a failed one saying why there is none that watch could have written."""
    if not os.path.exists(out):
        return _lost(code)
    try:
        doc = read_doc(out)
    except UsageError as exc:
        return _unreadable(exc)
    return doc if isinstance(doc, dict) else _unreadable(f"it holds a JSON {type(doc).__name__}")


def _result(config, doc):
    """The Watching of a worker's document."""
    doc = read_worker(Watching, doc)
    # The watch worker reports no devices: the machine is the parent's, whatever the document says.
    tf_version, machine = runner.envelope([{k: doc[k] for k in ("status", "tf_version") if k in doc}])
    return Watching.from_dict({**doc, "tf_version": doc.get("tf_version") or tf_version,
                               "machine": machine, "script": os.path.abspath(config.script),
                               "argv": [config.script, *config.args]})


def _lost(code):
    """The document of a watch process that ended without writing one."""
    how = f"was killed by {_signal_name(-code)}" if code < 0 else f"ended with status {code}"
    return {"status": "failed", "error": f"the watched process {how} before saying what it saw"}


def _unreadable(why):
    """The document of a watch process whose document was overwritten, by the script or another process."""
    return {"status": "failed", "error": f"what the watched process left was not a watch document ({why})"}


def _signal_name(number):
    """The signal's name (SIGKILL), or 'signal N' for a number Python does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
