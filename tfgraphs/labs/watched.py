"""Lab 7's watched script: `python watched.py LAB.py OUT.json FOLDER` calls LAB.py's main() and writes its result,
beside the scalars its Session.run calls fetched (the last FETCHED_KEPT), so that the judge can tell a loss the graph
computed from one computed beside it. Before LAB.py runs, this process confines it (labs.confine): nothing it starts
may signal watch or the judge, and what it leaves running stays below it."""

import importlib.util
import json
import os
import sys
import types

FETCHED_KEPT = 1000


def imported(path):
    """The file at path as the module lab_submission, as every lab's check imports it: its __main__ part stays off."""
    spec = importlib.util.spec_from_file_location("lab_submission", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def returned(value):
    """main()'s return value as JSON: a number, or the start of its repr when it is none."""
    try:
        return {"returned": float(value)}
    except (TypeError, ValueError):
        return {"returned": None, "returned_repr": repr(value)[:80]}


def fetching(kept):
    """Keep in kept every scalar number a tf.compat.v1.Session's run, or a callable it made, returns, as float."""
    import numpy as np
    import tensorflow as tf

    session = tf.compat.v1.Session

    def keep(values):
        for value in tf.nest.flatten(values):
            if value is not None and np.ndim(value) == 0 and np.issubdtype(np.asarray(value).dtype, np.number):
                kept.append(float(value))
        del kept[:-FETCHED_KEPT]
        return values

    def run(self, *args, original=session.run, **kwargs):
        return keep(original(self, *args, **kwargs))

    def make_callable(self, *args, original=session.make_callable, **kwargs):
        made = original(self, *args, **kwargs)

        def call(*a, **k):
            return keep(made(*a, **k))
        return call

    session.run, session.make_callable = run, make_callable


def run(path, out, folder):
    """Call main() of the file at path, with FOLDER (the student's) on sys.path; write what it returned or raised."""
    from tfgraphs.labs.checking import first_line, where_raised
    from tfgraphs.labs.confine import ancestors, confine
    # The package's copy of fetching, not this script's: watch takes every frame of the script it runs for the user's.
    from tfgraphs.labs.watched import fetching as installed

    confine(ancestors(os.getppid()))
    sys.path.insert(1, folder)   # the student's own modules beside the file, after this folder
    fetched = []
    installed(fetched)
    try:
        result = returned(imported(path).main())
    except Exception as exc:
        # Reported as every lab's check reports an error: its first line, and the student's line it passed last.
        result = {"raised": f"{type(exc).__name__}: {first_line(exc)}",
                  "where": where_raised(exc, types.SimpleNamespace(__file__=path)), "fetched": fetched}
        _write(result, out)
        raise   # the traceback and exit status 1 the student's script would give
    _write({**result, "fetched": fetched}, out)


def _write(result, out):
    """Write result as JSON to the file out."""
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    run(os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3])
