"""How a lab's check is declared and judged: what may cross from the student's process (plain data), the decorators
a check declares its judge and hints with, the one limit every run of a check keeps, and its Outcome, printed as an
ok or WRONG line and counted: "lab N: k of n checks passed"."""

import base64
import contextvars
import io
import numbers
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

DEFAULT_TIMEOUT_S = 60.0
STOPPED = "did not finish within"   # how a check that hung begins its detail
SEEN_CHARS = 240   # the most of a detail a `seen:` line shows: three lines of a terminal (--json keeps it whole)
# Lines of a TensorFlow error that frame its message: the stack of the op that failed, and its headers.
FRAMING = ("Graph execution error", "Detected at node", "Node:", "[[", "File ", "Traceback", "Original stack")
# How the student's process asks the judge for a run (labs.sessions): ask(request) -> reply, set by the process that
# loads the student's file, before it does.
CHANNEL = [None]


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


def observed(facts_of):
    """Decorator: the check is judged on facts_of(what its body sent, Seen), what the judge saw itself while the body
    ran (the runs it made for the student's code) or sees itself afterwards (lab 7's watch): the body's own facts
    cannot stand in for it."""
    def mark(check):
        check.observe = facts_of
        return check
    return mark


@dataclass(frozen=True)
class Seen:
    """What the judge itself saw of one check: the student's file, the record of the runs it made for that code
    (labs.sessions), and the seconds left of the check's limit, and that limit."""

    path: str
    record: dict
    left_s: float
    limit_s: float


def hint_for(check, message):
    """The hint of the first (text, hint) pair of the check whose text the error's message holds, else its hint."""
    return next((h for text, h in getattr(check, "error_hints", ()) if text in message), hint_of(check))


# One check's verdict: the Outcome the judge gives a check's facts, and the lines that print a lab's outcomes.

class GraphFailed(Exception):
    """Running a student's graph in the judge raised (TensorFlow's error, kept as the cause), was stopped at the
    check's limit (ran), or was refused before it ran."""

    def __init__(self, message, ran=False):
        super().__init__(message)
        self.ran = ran


# One limit for everything a check does: the child's run of the student's code, and each run the judge makes of
# what that code built, share the check's timeout; the deadline is this context's, set by judge().
DEADLINE = contextvars.ContextVar("deadline", default=None)


@contextmanager
def limited(left_s, limit_s=None):
    """Within: the judge's runs of a student's graph end by left_s from now, what is left of the check's limit_s
    (default left_s), the limit a check stopped there names."""
    token = DEADLINE.set((time.monotonic() + left_s, left_s if limit_s is None else limit_s))
    try:
        yield
    finally:
        DEADLINE.reset(token)


def remaining_ms():
    """What is left of the check's limit, in whole milliseconds (at least 1): TensorFlow's RunOptions.timeout_in_ms."""
    deadline, _ = DEADLINE.get() or (time.monotonic() + DEFAULT_TIMEOUT_S, DEFAULT_TIMEOUT_S)
    return max(1, int((deadline - time.monotonic()) * 1000))


def stopped_detail():
    """How a check whose run the judge stopped at the limit says so."""
    _, limit = DEADLINE.get() or (None, DEFAULT_TIMEOUT_S)
    return f"{STOPPED} {limit:g} s (a loop that never ends?); stopped"


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


def judge(check, facts, left_s=DEFAULT_TIMEOUT_S, limit_s=None):
    """The check's Outcome from its facts alone: what the judge runs, never the student's code, each of its runs
    ending by left_s, what is left of the check's limit_s."""
    try:
        with limited(left_s, limit_s):
            passed, detail, hint_text = check.judge(facts)
    except GraphFailed as exc:
        # The student's graph, imported and run here, raised (TensorFlow's message and the hint for it), was stopped,
        # or was refused.
        message, cause = first_line(exc.__cause__ or exc), exc.__cause__
        failed = getattr(getattr(cause, "op", None), "name", None)
        detail = (f"your graph, run by the checker, raised {type(cause).__name__}: {message}" if cause else
                  f"your graph, run by the checker, {message}" if exc.ran else f"your graph was not run: {message}")
        passed, detail = False, detail + (f" (at node {failed[:80]!r})" if failed else "")
        hint_text = hint_for(check, message)
    except KeyError as exc:
        # Facts this check's body never sends: something else wrote to the checker.
        passed, detail, hint_text = False, f"what reached the checker is not what this check sends (no {exc})", ""
    except Exception as exc:
        passed, detail, hint_text = False, f"what your code gave could not be judged ({type(exc).__name__}: {exc})", ""
    return Outcome(check_name(check), bool(passed), detail, hint_text or ("" if passed else hint_of(check)))


def shown(text):
    """text as a terminal shows it safely: each control character (an escape sequence's ESC, a bell, a newline) and
    each other unprintable one written as its escape."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def brief(text, most=SEEN_CHARS):
    """text as a `seen:` line shows it: cut after `most` characters, saying how many it had."""
    text = shown(text)
    return text if len(text) <= most else f"{text[:most].rstrip()} ... ({most} of {len(text):,} characters shown)"


def print_outcomes(number, outcomes, stream=None, checks=None):
    """Print each check's ok or WRONG line (with what was seen and the hint) and the count; return the exit status."""
    for o in outcomes:
        if o.passed:
            print(f"ok    {shown(o.name)}" + (f": {shown(o.detail)}" if o.detail else ""), file=stream)
            continue
        # The goal, then what was observed, then the likely mistake behind it.
        print(f"WRONG {shown(o.name)}", file=stream)
        print(f"      seen: {brief(o.detail) or 'nothing to judge'}", file=stream)
        if o.hint:
            print(f"      hint: {shown(o.hint)}", file=stream)
    passed = sum(o.passed for o in outcomes)
    print(f"lab {number}: {passed} of {checks or len(outcomes)} checks passed", file=stream)
    return 0 if passed == len(outcomes) else 1


