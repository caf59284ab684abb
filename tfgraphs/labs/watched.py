"""Lab 7's watched script: `python watched.py LAB.py OUT.json FOLDER` calls LAB.py's main() and writes its result."""

import importlib.util
import json
import os
import sys
import types


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


def run(path, out, folder):
    """Call main() of the file at path, with FOLDER (the student's) on sys.path; write what it returned or raised."""
    from tfgraphs.labs.checking import first_line, where_raised

    sys.path.insert(1, folder)   # the student's own modules beside the file, after this folder
    try:
        result = returned(imported(path).main())
    except Exception as exc:
        # Reported as every lab's check reports an error: its first line, and the student's line it passed last.
        result = {"raised": f"{type(exc).__name__}: {first_line(exc)}",
                  "where": where_raised(exc, types.SimpleNamespace(__file__=path))}
        _write(result, out)
        raise   # the traceback and exit status 1 the student's script would give
    _write(result, out)


def _write(result, out):
    """Write result as JSON to the file out."""
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)


if __name__ == "__main__":
    run(os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3])
