"""A child for tests/test_workers.py: prints what it was started with as one JSON line, then does what argv says."""

import json
import os
import sys
import time

print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "mark": os.environ.get("PROBE_MARK"),
                  "pgid": os.getpgid(0), "ppid": os.getppid(), "stdin": sys.stdin.readline().strip(),
                  "tensorflow": "tensorflow" in sys.modules, "name": __name__}), flush=True)
print("to stderr", file=sys.stderr, flush=True)
if sys.argv[1:2] == ["sleep"]:
    time.sleep(600)
raise SystemExit(int(sys.argv[1]) if sys.argv[1:2] and sys.argv[1].isdigit() else 0)
