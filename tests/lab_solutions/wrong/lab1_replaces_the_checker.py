"""Lab 1, wrong: nothing is built; the checking process's own functions are replaced through __main__."""

import sys

checker = sys.modules["__main__"]
if hasattr(checker, "Outcome"):
    def passed(check, module=None):
        return checker.Outcome(checker.check_name(check), True, "passed", "")

    checker.run_check = passed
    checker.gather = lambda check, module: (None, passed(check))
