"""Run each measurement in a fresh worker process and turn anything but a clean JSON result into a failed row."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque

from tfgraphs.protocol import PHASE_PREFIX   # the workers' progress lines


class Progress:
    """One line per step on stderr; silent when quiet."""

    def __init__(self, total, quiet=False, stream=sys.stderr):
        self.total, self.quiet, self.stream = total, quiet, stream
        self.done = 0
        self.context = ""   # said before every label, e.g. the batch a sweep is at
        self.started = time.monotonic()

    def say(self, label, phase):
        if not self.quiet:
            elapsed = time.monotonic() - self.started
            print(f"[{self.done + 1}/{self.total} {elapsed:5.0f}s] {self.context}{label}: {phase}", file=self.stream,
                  flush=True)


def _describe_exit(code, timed_out, timeout):
    if timed_out:
        return f"worker killed after the {timeout:g} s timeout"
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        hint = " (out of memory? try a smaller --batch)" if -code == signal.SIGKILL else ""
        return f"worker killed by signal {name}{hint}"
    return f"worker exited with status {code}"


def run_worker(argv, label, progress, timeout=None, env=None):
    """Run `python <argv>` in a fresh process; return its JSON document, or a failed one saying why."""
    worker_env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"), **(env or {})}
    tail = deque(maxlen=20)
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([sys.executable, *argv], stdout=out, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, env=worker_env, text=True, errors="replace")

        def read_stderr():
            for line in proc.stderr:
                if line.startswith(PHASE_PREFIX):
                    progress.say(label, line[len(PHASE_PREFIX):].strip())
                elif line.strip():
                    tail.append(line.rstrip())

        reader = threading.Thread(target=read_stderr, daemon=True)
        reader.start()
        timed_out = False
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            code = proc.wait()
        reader.join()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    progress.done += 1
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if code == 0 and isinstance(doc, dict) and doc.get("status") == "ok":
        return doc
    if isinstance(doc, dict) and doc.get("error"):
        return {**doc, "status": "failed"}
    if code == 0 and not timed_out:
        return {"status": "failed", "error": "worker printed no JSON result"}
    reason = _describe_exit(code, timed_out, timeout)
    if tail and not timed_out and code > 0:
        reason += f": {tail[-1][:300]}"
    return {"status": "failed", "error": reason}


def rotated(items, k):
    """items rotated left by k, so every item takes every position across trials."""
    items = list(items)
    if not items:
        return items
    k %= len(items)
    return items[k:] + items[:k]
