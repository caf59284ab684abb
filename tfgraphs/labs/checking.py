"""Run a lab's checks on a student's file: its code in a child process with a timeout, the judging in this one.

The parent (check_lab) never imports the student's code. The child (`python -m tfgraphs.labs.checking N PATH`)
confines itself (labs.confine), imports that code and runs each check's body, which sends, as plain data (encode),
one JSON line per event, what TensorFlow itself serialized of what the code built (a GraphDef's bytes, tensor names,
a feed_dict's arrays, a ConfigProto) or what a student's function returned for the checker's inputs. The judge
imports those graphs and runs them here on its own inputs against its own NumPy reference (labs.rerun); each
Session.run the code makes while a body runs is made here too, and recorded here (labs.sessions); lab 7's watch is
started from here (labs.under_watch). No size, output or verdict computed beside the student's code is evidence, so
what that code replaces or forges in its process proves nothing. Every wait has the check's limit; a hang or a crash
of the child becomes a WRONG outcome with the reason; what the code started is ended, and named, before the verdict
is printed (labs.verdicts says how a check declares its judge and hints, and how its Outcome prints).
"""

import importlib
import importlib.util
import io
import json
import os
import queue
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import asdict

from tfgraphs import processes, usercode
from tfgraphs.errors import UsageError
from tfgraphs.labs import DEFAULT_MEMORY_BYTES, known_lab
from tfgraphs.labs.notebook import as_script, checked_names, relabel, script_of
from tfgraphs.labs.verdicts import (CHANNEL, DEFAULT_TIMEOUT_S, STOPPED, Outcome, Seen, check_name, decode, encode,
                                    first_line, hint_for, hint_of, judge, limited, print_outcomes, shown)

LOADING = "loading your file"
ENDED = "the process running your code ended"   # and one whose process died
START_S = 300.0   # importing TensorFlow in the child, before any student code runs: not the student's time
POLL_S = 0.25   # how often the memory a check's processes hold is looked at
OVER_MEMORY = "its processes held"
# The module holding each lab's checks, found by name: those modules import labs.verdicts for the decorators, and
# name in OBSERVER what records the runs their bodies ask for (labs.sessions).
CHECK_MODULES = {1: "tfgraphs.labs.rerun", 2: "tfgraphs.labs.rerun", 3: "tfgraphs.labs.rerun",
                 4: "tfgraphs.labs.observed", 5: "tfgraphs.labs.observed", 6: "tfgraphs.labs.observed",
                 7: "tfgraphs.labs.under_watch"}
# Far past any lab solution (a notebook with its outputs is a few MB), short of what jupytext should be asked to read.
MAX_SOLUTION_BYTES = 64 * 2**20
# One event from the child at most (lab 4's 21 GraphDefs are a few MB): a longer line is not read into the judge.
MAX_EVENT_CHARS = 64 * 2**20
# TensorFlow's C++ log level in the child, unless the user set one: it is read as TensorFlow loads, so it goes in the
# environment the child starts with (a forked child's TensorFlow loaded in its server) and not only in its __main__.
CHILD_LOG_LEVEL = "3"


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


def run_check(check, module, timeout_s=DEFAULT_TIMEOUT_S, sent=None):
    """One check in this process, its facts passed through the same plain-data form as between the processes, the
    runs its body asks for made by an Observer here as the judge makes them. SENT, kept across the checks of one
    module, holds the facts first gathered for each key checks share (shares): the child sends those once."""
    observer = observer_of(check)
    CHANNEL[0] = lambda request: decode(encode(observer.answer(decode(encode(request)))))
    key = getattr(check, "shares", None)
    try:
        if sent is not None and key in sent:
            facts = sent[key]
        else:
            with limited(timeout_s):
                found, failed = gather(check, module)
            if failed:
                return failed
            facts = decode(encode(found))
            if sent is not None and key is not None:
                sent[key] = facts
        if getattr(check, "observe", None):
            facts = check.observe(facts, Seen(module.__file__, decode(encode(observer.record())), timeout_s,
                                              timeout_s))
        return judge(check, facts, timeout_s)
    finally:
        observer.close()
        CHANNEL[0] = None


class NoRuns:
    """The observer of a check whose module makes no run for the student's code: it refuses every request."""

    def answer(self, request):
        return {"error": "this check makes no session run for your code", "code": 9}

    def record(self):
        return {}

    def close(self):
        pass


def observer_of(check):
    """A fresh observer of the runs check's body asks for: its module's OBSERVER, else NoRuns."""
    return getattr(sys.modules[check.__module__], "OBSERVER", NoRuns)()


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


def child(number, path, first=0, judge_pid=None):
    """The child's side: load the file, gather each check's facts from index `first`, one JSON line per event; the
    runs a check's body asks the judge for are answered on stdin."""
    from tfgraphs.labs import confine

    try:
        os.setsid()   # a session of its own: what the student's code leaves running is found there and ended
    except OSError:
        pass          # already leads one
    out, replies = os.fdopen(os.dup(1), "w"), os.fdopen(os.dup(0), "r")
    os.dup2(2, 1)   # whatever the student's code prints goes to stderr, not into the events
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    tempfile.tempdir = None   # TMPDIR as the judge set it, not as a server this process forked from found it
    # Bound before the student's file runs: what it replaces in this module or in json afterwards is not used here.
    dumps, loads, collect, plain, unplain = json.dumps, json.loads, gather, encode, decode

    def say(**event):
        out.write(dumps(event) + "\n")
        out.flush()

    asking = threading.Lock()   # one request and its reply at a time, whichever thread of the code runs

    def ask(request):
        with asking:
            say(request=plain(request))
            return unplain(loads(replies.readline() or "{}"))

    try:
        checks = checks_of(number)   # TensorFlow imported before the student's file, which imports it too
        say(ready=True)
        CHANNEL[0] = ask
        confine.confine(set(confine.ancestors(os.getppid()) + confine.ancestors(judge_pid or os.getppid())))
        module = load(path)
    except UsageError as exc:
        say(usage=str(exc))
        return 2
    say(checks=[check_name(c) for c in checks])
    shared = set()   # the keys (shares) whose facts this process sent: the judge judges their later checks on those
    for check in checks[first:]:
        say(start=check_name(check))
        key = getattr(check, "shares", None)
        if key is not None and key in shared:
            say(facts=None)
            continue
        found, failed = collect(check, module)
        if failed is None:
            try:
                say(facts=plain(found))
                shared.add(key)
                continue
            except (TypeError, ValueError) as exc:
                failed = Outcome(check_name(check), False, f"returned something that is not plain data ({exc})")
        say(outcome=asdict(failed))
    say(done=True)
    replies.read()   # alive until the judge has ended what the code left running: its orphans stay below it
    return 0


# The parent's side: children started, their events followed and judged here.

def _events(proc):
    """A queue the child's events arrive on, None when its stdout closes."""
    events = queue.Queue()

    def read():
        while True:
            line = proc.stdout.readline(MAX_EVENT_CHARS)
            if not line:
                break
            if not line.endswith("\n") and len(line) == MAX_EVENT_CHARS:
                events.put({"oversized": True})   # more than any check sends: read no further
                break
            try:
                events.put(json.loads(line))
            except ValueError:
                continue
        events.put(None)

    threading.Thread(target=read, daemon=True).start()
    return events


def collect(number, path, timeout_s, ended=None, memory_bytes=DEFAULT_MEMORY_BYTES):
    """Every check's Outcome, in the order this process knows them; a check that hangs or crashes, or that the child
    never reports, is WRONG and the next ones run in a fresh child. The processes the student's code left running,
    its orphans and daemons too, are ended, and listed as (pid, name) in ended."""
    from tfgraphs.labs import confine

    checks, outcomes, ended, sent = checks_of(number), [], [] if ended is None else ended, {}
    with confine.reaped(ended):
        while len(outcomes) < len(checks):
            found, failure = _one_child(number, path, (timeout_s, memory_bytes), checks[len(outcomes):], ended,
                                        sent)
            outcomes += found
            if failure is not None:
                outcomes.append(failure)
                if failure.name == LOADING:
                    return outcomes
    return outcomes


def _one_child(number, path, limits, checks, ended, sent):
    """(outcomes, the failed Outcome or None) of one child running the given checks, the last ones of the lab; sent
    holds the facts first sent for each key checks share (shares). The child's temporary files go to a folder of
    its own, removed with it."""
    from tfgraphs.labs import confine

    first = len(checks_of(number)) - len(checks)
    argv = [sys.executable, "-m", "tfgraphs.labs.checking", str(number), str(path), str(first), str(os.getpid())]
    with tempfile.TemporaryDirectory(prefix="tfgraphs-lab-") as scratch:
        env = {"TF_CPP_MIN_LOG_LEVEL": CHILD_LOG_LEVEL, **os.environ, "TMPDIR": scratch}
        proc = processes.start(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
        proc.session = None   # the child's session once it says it leads one: what it leaves behind is found there
        try:
            return _follow(proc, limits, checks, sent, path)
        finally:
            # An interrupt (Ctrl-C, a notebook's "interrupt kernel") or any error here ends the child too: frozen
            # first, its descendants ended, then it; nothing it started outlives the check, whatever it did.
            if proc.poll() is None:
                ended += confine.end_tree(proc.pid)
                proc.kill()
            _collected(proc)
            if proc.session == proc.pid:
                ended += usercode.end_session(proc.session)


def _collected(proc, wait_s=10.0):
    """Wait for a killed child, never for ever: a handle that cannot say it ended is left to the kernel."""
    try:
        proc.wait(wait_s)
    except subprocess.TimeoutExpired:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            stream.close()
        except (OSError, AttributeError):
            pass


def _judged(check, data, seen):
    """The Outcome of facts as they came from the child, with what the judge saw itself: anything but plain data is
    WRONG."""
    try:
        facts = decode(data)
    except Exception as exc:
        return Outcome(check_name(check), False, f"the process running your code sent what is not plain data ({exc})")
    if getattr(check, "observe", None):
        facts = check.observe(facts, seen)
    return judge(check, facts, seen.left_s, seen.limit_s)


def _session_of(pid):
    """The session pid belongs to, or None once it has ended."""
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _follow(proc, limits, checks, sent, path):
    """The child's events until it ends, each check's facts judged here and each run its code asks for made here:
    (outcomes, the failed Outcome or None). Which check an event is about is this process's count, never a name the
    child sends; every wait ends by the check's limit of time, and the child's processes are held to its limit of
    memory, looked at every POLL_S."""
    timeout_s, memory_bytes = limits
    errors = usercode.Tail(proc.stderr)   # the child's last lines, kept to say why it crashed
    events, outcomes, running, loaded = _events(proc), [], None, False
    until, observer = time.monotonic() + START_S, NoRuns()
    stopped = f"{STOPPED} {timeout_s:g} s (a loop that never ends?); stopped"
    try:
        while len(outcomes) < len(checks):
            event, over = _waited(events, until, proc.pid, memory_bytes)
            if over:
                return outcomes, Outcome(running or LOADING, False, stopped if over is True else over)
            if event is None or "oversized" in event:
                break
            check = checks[len(outcomes)]
            if "usage" in event:
                raise UsageError(str(event["usage"]))
            if "ready" in event:
                running, until = LOADING, time.monotonic() + timeout_s
                proc.session = _session_of(proc.pid)
            elif "checks" in event:
                running, loaded = None, True
            elif "start" in event:
                running, until = check_name(check), time.monotonic() + timeout_s
                observer.close()
                observer = observer_of(check)
            elif "request" in event and not _answer(proc, observer, event["request"], until):
                break
            elif "facts" in event:
                seen = Seen(str(path), observer.record(), max(until - time.monotonic(), 0.001), timeout_s)
                outcomes.append(_judged(check, sent.setdefault(getattr(check, "shares", check), event["facts"]), seen))
                running = None
            elif "outcome" in event:
                # The child only ever reports a check that failed to gather: a pass comes from judging facts here.
                reported = event["outcome"] if isinstance(event["outcome"], dict) else {}
                outcomes.append(Outcome(check_name(check), False, str(reported.get("detail", ""))[:600],
                                        str(reported.get("hint", ""))[:600]))
                running = None
    finally:
        observer.close()
    if len(outcomes) == len(checks):
        return outcomes, None
    try:
        code = proc.wait(max(until - time.monotonic(), 0.001))   # its events ended: it ends too, or is stopped
    except subprocess.TimeoutExpired:
        return outcomes, Outcome(running or LOADING, False, stopped)
    last = next((line.strip() for line in reversed(errors.finished(1.0)) if line.strip()), "")
    what = f"{ENDED} with status {code}" + (f": {last[:200]}" if last else "")
    if code == 0:
        what = f"{ENDED} before this check reported"
    return outcomes, Outcome(running or (check_name(checks[len(outcomes)]) if loaded else LOADING), False, what)


def _waited(events, until, pid, memory_bytes):
    """(the child's next event, None), or (None, True) once until has passed, or (None, why) once the processes of
    pid hold more than memory_bytes: looked at before each event (a child that keeps asking is looked at too) and
    every POLL_S while none comes."""
    while True:
        held = usercode.tree_rss(pid)
        if held > memory_bytes:
            return None, (f"{OVER_MEMORY} {held:,} bytes, more than the {memory_bytes:,} a check may hold "
                          f"(--memory); stopped")
        try:
            return events.get(timeout=max(min(until - time.monotonic(), POLL_S), 0)), None
        except queue.Empty:
            if time.monotonic() >= until:
                return None, True


def _answer(proc, observer, request, until):
    """Make the run the child asks for and send the reply; False once the child no longer reads."""
    try:
        with limited(max(until - time.monotonic(), 0.001)):
            reply = observer.answer(decode(request))
    except Exception as exc:   # a request no JudgedSession sends
        reply = {"error": f"the checker could not make that run ({type(exc).__name__})", "code": 3}
    try:
        proc.stdin.write(json.dumps(encode(reply)) + "\n")
        proc.stdin.flush()
        return True
    except (OSError, ValueError):
        return False


def check_lab(number, path, stream=None, timeout_s=DEFAULT_TIMEOUT_S, memory_bytes=DEFAULT_MEMORY_BYTES):
    """Run lab `number`'s checks on the file at path; print them (to stdout by default) once every process the
    student's code started has ended; return the exit status (0 = all passed)."""
    known_lab(number)
    solution_file(path)
    ended = []
    with as_script(os.path.abspath(path)) as script:   # a notebook is checked as its code cells, in order
        outcomes = collect(number, script, timeout_s, ended, memory_bytes)
    if ended:
        print(f"lab check: ended {shown(usercode.listed(sorted(set(ended)), 'your code left running'))}", file=sys.stderr)
    return print_outcomes(number, outcomes, stream, checks=len(checks_of(number)))


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
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", CHILD_LOG_LEVEL)
    sys.stdout.flush()
    os._exit(child(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0,
                   int(sys.argv[4]) if len(sys.argv) > 4 else None))
