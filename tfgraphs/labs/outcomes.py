"""One check's verdict: the Outcome the judge gives a check's facts, and the lines that print a lab's outcomes."""

from dataclasses import dataclass

from tfgraphs.labs.marks import hint_for, hint_of
from tfgraphs.labs.rerun import GraphFailed


@dataclass(frozen=True)
class Outcome:
    """One check's verdict."""

    name: str
    passed: bool
    detail: str = ""
    hint: str = ""


def check_name(check):
    return check.__doc__.strip().splitlines()[0] if check.__doc__ else check.__name__


# Lines of a TensorFlow error that frame its message: the stack of the op that failed, and its headers.
FRAMING = ("Graph execution error", "Detected at node", "Node:", "[[", "File ", "Traceback", "Original stack")


def first_line(exc):
    """What an error says, in one line: TensorFlow's messages wrap it in the stack of the op that failed."""
    text = getattr(exc, "message", None) or str(exc)
    said = [line.strip() for line in text.splitlines()
            if line.strip() and not line[:1].isspace() and not line.strip().startswith(FRAMING)]
    return (said or text.strip().splitlines() or [type(exc).__name__])[0][:300]


def judge(check, facts):
    """The check's Outcome from its facts alone: what the judge runs, never the student's code."""
    try:
        passed, detail, hint_text = check.judge(facts)
    except GraphFailed as exc:
        # The student's graph, imported and run here, raised (TensorFlow's message and the hint for it), or was refused.
        said, cause = first_line(exc.__cause__ or exc), exc.__cause__
        failed = getattr(getattr(cause, "op", None), "name", None)
        detail = (f"your graph, run by the checker, raised {type(cause).__name__}: {said}" if cause else
                  f"your graph was not run: {said}")
        passed, detail = False, detail + (f" (at node {failed[:80]!r})" if failed else "")
        hint_text = hint_for(check, said)
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
