"""Run a lab's checks on a student's file: its code in a child process with a timeout, the judging in this one.

The parent (check_lab) never imports the student's code. The child (`python -m tfgraphs.labs.checking N PATH`)
imports it and runs each check's body, which sends, as plain data (encode), one JSON line per event, what TensorFlow
itself serialized of what that code built (a GraphDef's bytes, tensor names, a feed_dict's arrays, a ConfigProto) or
what a student's function returned for the checker's inputs. The judge imports those graphs and runs them here on its
own inputs against its own NumPy reference (labs.rerun): no size, output or verdict computed beside the student's code
is evidence, so what that code replaces or forges in its process proves nothing. Which runs and sessions the code made
(labs 5 and 6) can only be seen in its process: the checker's session wrapper records them there (labs.observed).
A hang or a crash of the child becomes a WRONG outcome with the reason. A check declares beside its body its judge,
its hint and the hint for each likely error (the decorators below); its verdict is an Outcome, printed as an ok or
WRONG line and counted: "lab N: k of n checks passed".
"""

import base64
import importlib
import importlib.util
import io
import json
import numbers
import os
import queue
import stat
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import asdict, dataclass

import numpy as np

from tfgraphs import processes
from tfgraphs.errors import UsageError
from tfgraphs.labs import known_lab
from tfgraphs.labs.notebook import as_script, checked_names, relabel, script_of

DEFAULT_TIMEOUT_S = 60.0
LOADING = "loading your file"
STOPPED = "did not finish within"   # how a check that hung begins its detail
ENDED = "the process running your code ended"   # and one whose process died
START_S = 300.0   # importing TensorFlow in the child, before any student code runs: not the student's time
# The module holding each lab's checks, found by name: those modules import this one for the decorators below.
CHECK_MODULES = {1: "tfgraphs.labs.rerun", 2: "tfgraphs.labs.rerun", 3: "tfgraphs.labs.rerun",
                 4: "tfgraphs.labs.observed", 5: "tfgraphs.labs.observed", 6: "tfgraphs.labs.observed",
                 7: "tfgraphs.labs.under_watch"}
# Far past any lab solution (a notebook with its outputs is a few MB), short of what jupytext should be asked to read.
MAX_SOLUTION_BYTES = 64 * 2**20
# Lines of a TensorFlow error that frame its message: the stack of the op that failed, and its headers.
FRAMING = ("Graph execution error", "Detected at node", "Node:", "[[", "File ", "Traceback", "Original stack")


# What crosses from the process running a student's code to the judge: plain data, never objects or functions.
# Numbers, strings, booleans, None, lists, dicts, sets, bytes and NumPy arrays are written as JSON; arrays as .npy
# bytes read back without pickle. Anything else is refused where it is written, so nothing the student made can run
# in the judge.

def encode(value):
    """value as JSON-ready data; TypeError for anything that is not plain data."""
    if isinstance(value, np.ndarray):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        return {"ndarray": base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"set": [encode(v) for v in value]}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return type(value)(value) if value is not None else None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"a {type(value).__name__} is not plain data")


def decode(data):
    """The value encode() wrote; lists come back as tuples, so they can sit in sets and compare with ==."""
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if isinstance(data, dict):
        (kind, body), = data.items()
        if kind == "ndarray":
            return np.load(io.BytesIO(base64.b64decode(body)), allow_pickle=False)
        if kind == "bytes":
            return base64.b64decode(body)
        if kind == "dict":
            return {decode(k): decode(v) for k, v in body}
        return frozenset(decode(v) for v in body)
    return data


# How a check declares what it needs beside its body: its judge, its hint, and the hint for each likely error.

def hint_of(check):
    """The hint a check gives when it fails without a more specific one."""
    return getattr(check, "hint", "")


def hint(text):
    """Decorator: the hint a check gives when it fails without a more specific one."""
    def mark(check):
        check.hint = text
        return check
    return mark


def on_error(*pairs):
    """Decorator: (text in an error's message, the hint for it) pairs, the likely mistake behind each error."""
    def mark(check):
        check.error_hints = pairs
        return check
    return mark


def judged_by(verdict):
    """Decorator: the check's body gathers facts from the student's code; verdict(facts) -> (passed, detail, hint)
    judges them in the parent, which never imports that code."""
    def mark(check):
        check.judge = verdict
        return check
    return mark


def shares(key):
    """Decorator: the checks marked with one key are judged on the facts the first of them sent, so that code which
    builds something else on each call cannot pass each check with another build."""
    def mark(check):
        check.shares = key
        return check
    return mark


def hint_for(check, message):
    """The hint of the first (text, hint) pair of the check whose text the error's message holds, else its hint."""
    return next((h for text, h in getattr(check, "error_hints", ()) if text in message), hint_of(check))


# One check's verdict: the Outcome the judge gives a check's facts, and the lines that print a lab's outcomes.

class GraphFailed(Exception):
    """Running a student's graph in the judge raised: TensorFlow's error, kept as the cause."""


@dataclass(frozen=True)
class Outcome:
    """One check's verdict."""

    name: str
    passed: bool
    detail: str = ""
    hint: str = ""


def check_name(check):
    """The goal a check's WRONG or ok line names: the first line of its docstring."""
    return check.__doc__.strip().splitlines()[0] if check.__doc__ else check.__name__


def first_line(exc):
    """What an error says, in one line: TensorFlow's messages wrap it in the stack of the op that failed."""
    text = getattr(exc, "message", None) or str(exc)
    own = [line.strip() for line in text.splitlines()
           if line.strip() and not line[:1].isspace() and not line.strip().startswith(FRAMING)]
    return (own or text.strip().splitlines() or [type(exc).__name__])[0][:300]


def judge(check, facts):
    """The check's Outcome from its facts alone: what the judge runs, never the student's code."""
    try:
        passed, detail, hint_text = check.judge(facts)
    except GraphFailed as exc:
        # The student's graph, imported and run here, raised (TensorFlow's message and the hint for it), or was refused.
        message, cause = first_line(exc.__cause__ or exc), exc.__cause__
        failed = getattr(getattr(cause, "op", None), "name", None)
        detail = (f"your graph, run by the checker, raised {type(cause).__name__}: {message}" if cause else
                  f"your graph was not run: {message}")
        passed, detail = False, detail + (f" (at node {failed[:80]!r})" if failed else "")
        hint_text = hint_for(check, message)
    except KeyError as exc:
        # Facts this check's body never sends: something else wrote to the checker.
        passed, detail, hint_text = False, f"what reached the checker is not what this check sends (no {exc})", ""
    except Exception as exc:
        passed, detail, hint_text = False, f"what your code gave could not be judged ({type(exc).__name__}: {exc})", ""
    return Outcome(check_name(check), bool(passed), detail, hint_text or ("" if passed else hint_of(check)))


def print_outcomes(number, outcomes, stream=None):
    """Print each check's ok or WRONG line (with what was seen and the hint) and the count; return the exit status."""
    for o in outcomes:
        if o.passed:
            print(f"ok    {o.name}" + (f": {o.detail}" if o.detail else ""), file=stream)
            continue
        # The goal, then what was observed, then the likely mistake behind it.
        print(f"WRONG {o.name}", file=stream)
        print(f"      seen: {o.detail or 'nothing to judge'}", file=stream)
        if o.hint:
            print(f"      hint: {o.hint}", file=stream)
    passed = sum(o.passed for o in outcomes)
    print(f"lab {number}: {passed} of {len(outcomes)} checks passed", file=stream)
    return 0 if passed == len(outcomes) else 1


# The child's side: the student's file loaded, each check's body run on it.

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


def gather(check, module):
    """(facts, None) from a check's body run on the student's module, or (None, the WRONG Outcome) when it raised:
    the error's first line and the student's line, never the checker's traceback, with the hint for that error."""
    try:
        return check(module), None
    except NotImplementedError:
        return None, Outcome(check_name(check), False, "not implemented yet (raises NotImplementedError)",
                             hint_of(check))
    except Exception as exc:
        message = first_line(exc)
        detail = f"raised {type(exc).__name__}: {message} ({where_raised(exc, module)})"
        return None, Outcome(check_name(check), False, detail, hint_for(check, message))


def run_check(check, module):
    """One check in this process, its facts passed through the same plain-data form as between the processes."""
    found, failed = gather(check, module)
    return failed or judge(check, decode(encode(found)))


def where_raised(exc, module):
    """'line N' of the student's file where exc passed last, or where they created the op that failed; the file's
    name too when it is another file."""
    mine = getattr(module, "__file__", None)
    frames = traceback.extract_tb(exc.__traceback__)
    theirs = [f for f in frames if f.filename == mine]
    if theirs:
        return f"line {theirs[-1].lineno}"
    # An error of a run the checker made: TensorFlow keeps where the failing op was created.
    made = [f for f in getattr(getattr(exc, "op", None), "traceback", None) or () if f.filename == mine]
    if made:
        return f"line {made[-1].lineno}, where the op was made"
    return f"line {frames[-1].lineno} of {os.path.basename(frames[-1].filename)}"


def checks_of(number):
    """Lab `number`'s checks, in order; their judges need TensorFlow, imported without its start-up chatter."""
    from tfgraphs.tfimport import import_tensorflow

    known_lab(number)
    import_tensorflow()
    return importlib.import_module(CHECK_MODULES[number]).CHECKS[number]


def child(number, path, first=0):
    """The child's side: load the file, gather each check's facts from index `first`, one JSON line per event."""
    try:
        os.setsid()   # a session of its own: what the student's code leaves running is found there and ended
    except OSError:
        pass          # already leads one
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)   # whatever the student's code prints goes to stderr, not into the events
    # Bound before the student's file runs: what it replaces in this module or in json afterwards is not used here.
    dumps, collect, plain = json.dumps, gather, encode

    def say(**event):
        out.write(dumps(event) + "\n")
        out.flush()

    try:
        checks = checks_of(number)   # TensorFlow imported before the student's file, which imports it too
        say(ready=True)
        module = load(path)
    except UsageError as exc:
        say(usage=str(exc))
        return 2
    say(checks=[check_name(c) for c in checks])
    for check in checks[first:]:
        say(start=check_name(check))
        found, failed = collect(check, module)
        if failed is None:
            try:
                say(facts=plain(found))
                continue
            except (TypeError, ValueError) as exc:
                failed = Outcome(check_name(check), False, f"returned something that is not plain data ({exc})")
        say(outcome=asdict(failed))
    return 0


# The parent's side: children started, their events followed and judged here.

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


def collect(number, path, timeout_s, ended=None):
    """Every check's Outcome, in the order this process knows them; a check that hangs or crashes, or that the child
    never reports, is WRONG and the next ones run in a fresh child. The processes the student's code left running are
    ended, and listed as (pid, name) in ended."""
    checks, outcomes, ended, sent = checks_of(number), [], [] if ended is None else ended, {}
    while len(outcomes) < len(checks):
        found, failure = _one_child(number, path, timeout_s, checks[len(outcomes):], ended, sent)
        outcomes += found
        if failure is not None:
            outcomes.append(failure)
            if failure.name == LOADING:
                return outcomes
    return outcomes


def _one_child(number, path, timeout_s, checks, ended, sent):
    """(outcomes, the failed Outcome or None) of one child running the given checks, the last ones of the lab; sent
    holds the facts first sent for each key checks share (shares)."""
    first = len(checks_of(number)) - len(checks)
    argv = [sys.executable, "-m", "tfgraphs.labs.checking", str(number), str(path), str(first)]
    proc = processes.start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.session = None   # the child's session once it says it leads one: what it leaves behind is found there
    try:
        return _follow(proc, timeout_s, checks, sent)
    finally:
        # An interrupt (Ctrl-C, a notebook's "interrupt kernel") or any error here ends the child too.
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.session == proc.pid:
            ended += processes.end_session(proc.session)


def _judged(check, data):
    """The Outcome of facts as they came from the child: anything but plain data is WRONG."""
    try:
        return judge(check, decode(data))
    except Exception as exc:
        return Outcome(check_name(check), False, f"the process running your code sent what is not plain data ({exc})")


def _session_of(pid):
    """The session pid belongs to, or None once it has ended."""
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _follow(proc, timeout_s, checks, sent):
    """The child's events until it ends, each check's facts judged here: (outcomes, the failed Outcome or None).
    Which check an event is about is this process's count, never a name the child sends."""
    errors = []   # the child's stderr, kept to say why it crashed
    threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True).start()
    events, outcomes, running, ready, loaded = _events(proc), [], None, False, False
    while len(outcomes) < len(checks):
        try:
            event = events.get(timeout=timeout_s if ready else START_S)
        except queue.Empty:
            proc.kill()
            proc.wait()
            return outcomes, Outcome(running or LOADING, False, f"{STOPPED} {timeout_s:g} s (a loop that "
                                                                f"never ends?); stopped")
        if event is None:
            break
        check = checks[len(outcomes)]
        if "usage" in event:
            proc.wait()
            raise UsageError(event["usage"])
        if "ready" in event:
            ready, running = True, LOADING
            proc.session = _session_of(proc.pid)
        elif "checks" in event:
            running, loaded = None, True
        elif "start" in event:
            running = check_name(check)
        elif "facts" in event:
            outcomes.append(_judged(check, sent.setdefault(getattr(check, "shares", check), event["facts"])))
            running = None
        elif "outcome" in event:
            # The child only ever reports a check that failed to gather: a pass comes from judging facts here.
            reported = event["outcome"]
            outcomes.append(Outcome(check_name(check), False, str(reported.get("detail", ""))[:600],
                                    str(reported.get("hint", ""))[:600]))
            running = None
    code = proc.wait()
    if code == 0 and len(outcomes) == len(checks):
        return outcomes, None
    last = next((line.strip() for line in reversed(errors) if line.strip()), "")
    what = f"{ENDED} with status {code}" + (f": {last[:200]}" if last else "")
    if code == 0:
        what = f"{ENDED} before this check reported"
    return outcomes, Outcome(running or (check_name(checks[len(outcomes)]) if loaded else LOADING), False, what)


def check_lab(number, path, stream=None, timeout_s=DEFAULT_TIMEOUT_S):
    """Run lab `number`'s checks on the file at path; print them (to stdout by default); return the exit status (0 =
    all passed)."""
    known_lab(number)
    solution_file(path)
    ended = []
    with as_script(os.path.abspath(path)) as script:   # a notebook is checked as its code cells, in order
        outcomes = collect(number, script, timeout_s, ended)
    if ended:
        print(f"lab check: ended {processes.listed(ended, 'your code left running')}", file=sys.stderr)
    return print_outcomes(number, outcomes, stream)


def solution_file(path):
    """UsageError unless path is a regular .py or .ipynb file a lab solution could be: said before anything starts."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise UsageError(f"{path} does not exist" if isinstance(exc, FileNotFoundError) else
                         f"cannot read {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path} is not a regular file (a folder, device, FIFO or socket): give your .py or .ipynb")
    if not str(path).endswith((".py", ".ipynb")):
        raise UsageError(f"{path} is not a Python file or a notebook: give your .py or .ipynb")
    if info.st_size > MAX_SOLUTION_BYTES:
        raise UsageError(f"{path} is {info.st_size:,} bytes, more than any lab solution ({MAX_SOLUTION_BYTES:,})")


def check_namespace(number, namespace, timeout_s, stream=None):
    """Print lab `number`'s checks of the namespace's definitions, ok or WRONG with hints; return the exit status."""
    known_lab(number)   # a wrong number is the caller's error; every later UsageError is about the definitions
    stream = stream or sys.stdout
    script = script_of(namespace, checked_names(number))
    if script.left_out:
        print(f"left out of the check: {', '.join(script.left_out)} (the checked code reads them, but only functions "
              f"and classes with their source, imports and plain constants are carried into it)", file=stream)
    with tempfile.TemporaryDirectory(prefix=f"tfgraphs-lab{number}-") as folder:
        path = os.path.join(folder, f"lab{number}.py")
        with open(path, "w", encoding="utf-8") as out:
            out.write(script.text)
        printed = io.StringIO()
        try:
            code = check_lab(number, path, stream=printed, timeout_s=timeout_s)
        except UsageError as exc:
            printed.write(f"WRONG loading your definitions: {str(exc).replace(path + ' ', '')}\n")
            code = 2
    stream.write(relabel(printed.getvalue(), script.spans))
    return code


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stdout.flush()
    os._exit(child(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0))
