"""The worker's half of the runner protocol: `@phase NAME` lines on stderr, one JSON document on stdout."""

import json
import os
import sys
import traceback

from tfgraphs.spec.protocol import PHASE_PREFIX, from_argv


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
