"""Run a lab's checks on a student's file in a child process with a timeout: each says ok or wrong, with a hint.

The parent (check_lab) never imports the student's code. The child (`python -m tfgraphs.labs.checking N PATH`)
imports it, runs the checks and prints one JSON line per event on its own stdout; a hang or a crash of the child
becomes a WRONG outcome with the reason.
"""

import importlib
import importlib.util
import json
import os
import queue
import subprocess
import sys
import threading
import traceback
from dataclasses import asdict, dataclass

from tfgraphs import children
from tfgraphs.errors import UsageError
from tfgraphs.labs import LABS
from tfgraphs.labs.pairing import as_script

DEFAULT_TIMEOUT_S = 60.0
LOADING = "loading your file"
START_S = 300.0   # importing TensorFlow in the child, before any student code runs: not the student's time


@dataclass(frozen=True)
class Outcome:
    """One check's verdict."""

    name: str
    passed: bool
    detail: str = ""
    hint: str = ""


def load(path):
    """Import the student's file as a module; a file that cannot even be imported is a usage error."""
    spec = importlib.util.spec_from_file_location("lab_submission", path)
    if spec is None or not str(path).endswith(".py"):
        raise UsageError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise UsageError(f"{path} does not exist") from None
    except SystemExit as exc:
        raise UsageError(f"{path} calls sys.exit({exc.code}) when imported; keep that under if __name__ == '__main__'") from None
    except Exception as exc:
        raise UsageError(f"{path} fails to import: {type(exc).__name__}: {exc}") from None
    return module


def check_name(check):
    return check.__doc__.strip().splitlines()[0] if check.__doc__ else check.__name__


def run_check(check, module):
    """Run one check(module) -> (passed, detail, hint); an exception counts as wrong, with its message."""
    try:
        passed, detail, hint = check(module)
    except NotImplementedError:
        passed, detail, hint = False, "not implemented yet (raises NotImplementedError)", ""
    except Exception as exc:
        passed, detail, hint = False, f"raised {type(exc).__name__}: {exc} ({_where(exc, module)})", ""
    return Outcome(check_name(check), bool(passed), detail, hint or ("" if passed else _hint_of(check)))


def _where(exc, module):
    """'line N' of the student's file where exc passed last; the file's name too when it is another file."""
    frames = traceback.extract_tb(exc.__traceback__)
    theirs = [f for f in frames if f.filename == getattr(module, "__file__", None)]
    if theirs:
        return f"line {theirs[-1].lineno}"
    return f"line {frames[-1].lineno} of {os.path.basename(frames[-1].filename)}"


def run_checks(checks, module):
    """Every check's Outcome, in order, in this process."""
    return [run_check(check, module) for check in checks]


def _hint_of(check):
    return getattr(check, "hint", "")


def hint(text):
    """Decorator: the hint a check gives when it fails without a more specific one."""
    def mark(check):
        check.hint = text
        return check
    return mark


def known_lab(number):
    """Refuse a lab number there is no lab for."""
    if number not in LABS:
        raise UsageError(f"no lab {number}; the labs are {', '.join(map(str, LABS))}")


def _checker(number):
    known_lab(number)
    return importlib.import_module(f"tfgraphs.labs.check{number}")


def child(number, path, first=0):
    """The child's side: load the file, run the checks from index `first`, one JSON line per event on stdout."""
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)   # whatever the student's code prints goes to stderr, not into the events

    def say(**event):
        out.write(json.dumps(event) + "\n")
        out.flush()

    try:
        from tfgraphs.tfimport import import_tensorflow
        import_tensorflow()   # before the student's file, which imports it too
        checks = _checker(number).CHECKS
        say(ready=True)
        module = load(path)
    except UsageError as exc:
        say(usage=str(exc))
        return 2
    say(checks=[check_name(c) for c in checks])
    for check in checks[first:]:
        say(start=check_name(check))
        say(outcome=asdict(run_check(check, module)))
    return 0


def _events(proc):
    """A queue the child's events arrive on, None when its stdout closes."""
    events = queue.Queue()

    def read():
        for line in proc.stdout:
            try:
                events.put(json.loads(line))
            except ValueError:
                continue
        events.put(None)

    threading.Thread(target=read, daemon=True).start()
    return events


def collect(number, path, timeout_s):
    """Every check's Outcome; a check that hangs or crashes is WRONG and the next ones run in a fresh child."""
    outcomes, names = [], None
    while names is None or len(outcomes) < len(names):
        found, names, failure = _one_child(number, path, timeout_s, len(outcomes))
        outcomes += found
        if failure is not None:
            outcomes.append(failure)
            if failure.name == LOADING:
                return outcomes
    return outcomes


def _one_child(number, path, timeout_s, first):
    """(outcomes, check names, the failed Outcome or None) of one child running the checks from index first."""
    argv = [sys.executable, "-m", "tfgraphs.labs.checking", str(number), str(path), str(first)]
    proc = children.start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        return _follow(proc, timeout_s)
    finally:
        # An interrupt (Ctrl-C, a notebook's "interrupt kernel") or any error here ends the child too.
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _follow(proc, timeout_s):
    """The child's events until it ends: (outcomes, check names, the failed Outcome or None)."""
    errors = []   # the child's stderr, kept to say why it crashed
    threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True).start()
    events, outcomes, running, names, ready = _events(proc), [], None, None, False
    while True:
        try:
            event = events.get(timeout=timeout_s if ready else START_S)
        except queue.Empty:
            proc.kill()
            proc.wait()
            return outcomes, names, Outcome(running or LOADING, False,
                                            f"did not finish within {timeout_s:g} s (a loop that never ends?); "
                                            f"stopped")
        if event is None:
            break
        if "usage" in event:
            proc.wait()
            raise UsageError(event["usage"])
        if "ready" in event:
            ready, running = True, LOADING
        elif "checks" in event:
            names, running = event["checks"], None
        elif "start" in event:
            running = event["start"]
        elif "outcome" in event:
            outcomes.append(Outcome(**event["outcome"]))
            running = None
    code = proc.wait()
    if code == 0 and running is None and names is not None:
        return outcomes, names, None
    last = next((line.strip() for line in reversed(errors) if line.strip()), "")
    what = f"the process running your code ended with status {code}" + (f": {last[:200]}" if last else "")
    return outcomes, names, Outcome(running or LOADING, False, what)


def check_lab(number, path, stream=sys.stdout, timeout_s=DEFAULT_TIMEOUT_S):
    """Run lab `number`'s checks on the file at path; print them; return the exit status (0 = all passed)."""
    known_lab(number)
    if not os.path.exists(path):
        raise UsageError(f"{path} does not exist")
    with as_script(os.path.abspath(path)) as script:   # a notebook is checked as its code cells, in order
        outcomes = collect(number, script, timeout_s)
    for o in outcomes:
        mark = "ok   " if o.passed else "WRONG"
        print(f"{mark} {o.name}" + (f": {o.detail}" if o.detail else ""), file=stream)
        if not o.passed and o.hint:
            print(f"      hint: {o.hint}", file=stream)
    passed = sum(o.passed for o in outcomes)
    print(f"lab {number}: {passed} of {len(outcomes)} checks passed", file=stream)
    return 0 if passed == len(outcomes) else 1


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stdout.flush()
    os._exit(child(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0))
