"""How a worker's task crosses to its process, both halves: one flag per field of the task's frozen record, parsed
back by the worker; the worker answers with one JSON document on stdout and tells the parent its progress in
PHASE_PREFIX lines on stderr."""

import argparse
import json
import os
import sys
import traceback
from dataclasses import MISSING, field, fields

PHASE_PREFIX = "@phase "


def choice(names):
    """A task field whose flag takes one of names."""
    return field(metadata={"choices": tuple(names)})


def _flag(f):
    return "--" + f.name.replace("_", "-")


def to_argv(task):
    """`python` arguments that run the task's worker: -m MODULE, then one flag per field that is set."""
    argv = ["-m", task.MODULE]
    for f in fields(task):
        value = getattr(task, f.name)
        if value is not None:
            argv += [_flag(f), str(value)]
    return argv


def from_argv(cls, argv=None):
    """The task a worker was started with, parsed from the flags to_argv wrote."""
    p = argparse.ArgumentParser(prog=f"python -m {cls.MODULE}", description=cls.__doc__)
    for f in fields(cls):
        required = f.default is MISSING
        p.add_argument(_flag(f), dest=f.name, type=int if f.type is int else str, required=required,
                       default=None if required else f.default, choices=f.metadata.get("choices"))
    return cls(**vars(p.parse_args(argv)))


def phase(name):
    """Tell the parent which phase starts now."""
    print(PHASE_PREFIX + name, file=sys.stderr, flush=True)


def main(task_type, measure):
    """A worker's entry point: its whole job as flags, one JSON document out, the exit status back."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    code = serve(measure, from_argv(task_type))
    sys.stdout.flush()
    sys.stderr.flush()
    # The document is written: skip TensorFlow's teardown, which takes seconds after a large graph.
    os._exit(code)


def serve(measure, task):
    """Print {"status": "ok", ...measure(task)} or a failed document on stdout; return the exit status."""
    # Keep stdout for the JSON document alone: anything else written to fd 1 lands on stderr.
    result_stream = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    try:
        result = {"status": "ok", "error": None, **measure(task)}
        code = 0
    except Exception as exc:  # every failure must still produce a document for the parent
        traceback.print_exc(file=sys.stderr)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        result = {"status": "failed", "error": f"{type(exc).__name__}: {message}"[:500]}
        code = 1
    json.dump(result, result_stream)
    result_stream.close()
    return code
