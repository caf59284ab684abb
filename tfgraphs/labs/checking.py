"""Load a student's file and run a lab's checks: each says ok or wrong, with a hint when wrong."""

import importlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass

from tfgraphs.errors import UsageError
from tfgraphs.labs import LABS
from tfgraphs.tfimport import import_tensorflow


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


def run_checks(checks, module):
    """Run each check(module) -> (passed, detail, hint); an exception counts as wrong, with its message."""
    outcomes = []
    for check in checks:
        name = check.__doc__.strip().splitlines()[0] if check.__doc__ else check.__name__
        try:
            passed, detail, hint = check(module)
        except NotImplementedError:
            passed, detail, hint = False, "not implemented yet (raises NotImplementedError)", ""
        except Exception as exc:
            last = traceback.extract_tb(exc.__traceback__)[-1]
            passed, detail, hint = False, f"raised {type(exc).__name__}: {exc} (line {last.lineno})", ""
        outcomes.append(Outcome(name, passed, detail, hint or ("" if passed else _hint_of(check))))
    return outcomes


def _hint_of(check):
    return getattr(check, "hint", "")


def hint(text):
    """Decorator: the hint a check gives when it fails without a more specific one."""
    def mark(check):
        check.hint = text
        return check
    return mark


def check_lab(number, path, stream=sys.stdout):
    """Run lab `number`'s checks on the file at path; print them; return the exit status (0 = all passed)."""
    if number not in LABS:
        raise UsageError(f"no lab {number}; the labs are {', '.join(map(str, LABS))}")
    import_tensorflow()   # before the student's file, which imports it too
    module = load(path)
    checker = importlib.import_module(f"tfgraphs.labs.check{number}")
    outcomes = run_checks(checker.CHECKS, module)
    for o in outcomes:
        mark = "ok   " if o.passed else "WRONG"
        print(f"{mark} {o.name}" + (f": {o.detail}" if o.detail else ""), file=stream)
        if not o.passed and o.hint:
            print(f"      hint: {o.hint}", file=stream)
    passed = sum(o.passed for o in outcomes)
    print(f"lab {number}: {passed} of {len(outcomes)} checks passed", file=stream)
    return 0 if passed == len(outcomes) else 1
