"""Lab 7, wrong: main() raises, and the checks' watch replaced in the checking process to say what a right
solution's run would."""

from tfgraphs.labs import under_watch

GOOD = {"exit_code": 0, "ended": "exit", "status": "ok", "error": None, "runs": 33, "findings": [],
        "returned": under_watch.reference_loss(), "fetched": [under_watch.reference_loss()]}

__import__("builtins").GOOD = GOOD   # found from the checker's module, whose globals a replaced body runs with


def forged(*args, **kwargs):
    return dict(GOOD)


under_watch.watched_main = forged
under_watch.watch_of = forged
for check in under_watch.CHECKS[7]:
    check.__code__ = forged.__code__


def main():
    raise RuntimeError("never trained")
