"""Runs the docs' Python blocks for tests/test_docs.py: reads one request a line, {"code", "cwd"}; runs the code as
`python -c CODE` run in cwd would; answers one line, {"status", "stderr"}, on the stdout it had when it started (the
block's own output goes to files of its own)."""

import json
import os
import sys
import tempfile
import traceback

replies = os.fdopen(os.dup(1), "w")
for line in sys.stdin:
    request = json.loads(line)
    os.chdir(request["cwd"])
    kept = os.dup(0), os.dup(1), os.dup(2)
    with open(os.devnull) as nothing, tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        for fd, to in ((0, nothing), (1, out), (2, err)):   # the requests are not the block's input
            os.dup2(to.fileno(), fd)
        try:
            exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
            status = 0
        except SystemExit as exc:   # as the interpreter exits: None is 0, a message is printed and is 1
            if exc.code is None or isinstance(exc.code, int):
                status = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                status = 1
        except BaseException:
            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, saved in enumerate(kept):
            os.dup2(saved, fd)
            os.close(saved)
        err.seek(0)
        replies.write(json.dumps({"status": status, "stderr": err.read()[-2000:]}) + "\n")
        replies.flush()
