"""A command's job and its workers: its plan (refusals, how many, how much memory) checked before any starts, then
each measurement in a fresh worker process, K trials in rotating order, anything but a clean JSON result turned into
a failed one."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from tfgraphs import machine, processes
from tfgraphs.errors import UsageError
from tfgraphs.machine import installed_tf_version, machine_info
from tfgraphs.processes import PHASE_PREFIX, to_argv
from tfgraphs.spec.network import estimate_peak_bytes


@dataclass(frozen=True)
class Plan:
    """A job's plan: the rows it refuses and why, the most workers it may start, and each worker's size."""

    refused: dict      # {row key: reason}: rows that become failed rows without a worker
    notices: tuple     # one line per refusal, for stderr
    workers: int       # the progress total; a worker counted that does not start is skipped in progress
    seed_workers: tuple = ()  # ((variant, batch, dtype), ...): the workers measuring the seed network, by size
    data_held: tuple = ()     # ((what, bytes, remedy), ...): data one worker allocates before TensorFlow runs anything

    @property
    def runnable(self):
        """True when the plan starts any worker."""
        return self.workers > 0


@dataclass
class Job:
    """A command's job as its registry entry names it: plan(config) -> Plan, checked before any worker starts, and
    run(config, plan, progress, timeout, ...) -> its results (a module holding one command's plan and run is a job
    too)."""

    plan: Callable
    run: Callable
    Config: type | None = None      # the command's options, when declared beside its job rather than in spec
    writes: Callable | None = None  # writes(config, ...): the files its workers may write, known before the plan


def check_memory(plan, force=False, beside=0):
    """Raise UsageError if the hungriest worker's estimate (with beside bytes of other processes: the idle worker
    server), or the data a worker must hold, exceeds the memory available now."""
    if force:
        return
    for what, size, remedy in plan.data_held:
        have = machine.available_bytes()
        if size > have:
            raise UsageError(f"{what} would take {size / 1e9:,.1f} GB but {have / 1e9:.1f} GB is available; "
                             f"use {remedy}")
    if not plan.seed_workers:
        return
    need, (name, batch, dtype) = max((estimate_peak_bytes(*n) + beside, n) for n in plan.seed_workers)
    have = machine.available_bytes()
    if need > have:
        raise UsageError(
            f"variant {name} at batch {batch} ({dtype}) is estimated to need {need / 1e9:.1f} GB"
            f"{' with the worker server beside it' if beside else ''} but {have / 1e9:.1f} GB is available; use a "
            f"smaller --batch{', --fresh-workers' if beside else ''}, or --force to run anyway")


class Progress:
    """One line per worker phase on stderr, silent when quiet; it advances once per worker started or skipped."""

    def __init__(self, total, quiet=False, stream=None):
        # sys.stderr is looked up now, not at import: pytest and Jupyter replace it after tfgraphs is imported.
        self.total, self.quiet, self.stream = total, quiet, stream or sys.stderr
        self.done = 0
        self.started = time.monotonic()

    def say(self, label, phase):
        """One progress line: the worker's number, the time so far, its label and phase."""
        if not self.quiet:
            elapsed = time.monotonic() - self.started
            print(f"[{self.done + 1}/{self.total} {elapsed:5.0f}s] {label}: {phase}", file=self.stream, flush=True)

    @contextmanager
    def step(self, label):
        """One worker's lifetime: yields a function that reports its phases, and counts it done at the end."""
        try:
            yield lambda phase: self.say(label, phase)
        finally:
            self.done += 1

    def skip(self, label, why):
        """A worker the plan counted that will not start, and why."""
        self.say(label, f"skipped: {why}")
        self.done += 1


def _describe_exit(code, timed_out, timeout):
    """Why a worker that printed no document ended: its timeout, the signal that killed it, or its exit status."""
    if timed_out:
        return f"worker killed after the {timeout:g} s timeout"
    if code < 0:
        name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
        hint = " (out of memory? try a smaller --batch)" if -code == signal.SIGKILL else ""
        return f"worker killed by signal {name}{hint}"
    return f"worker exited with status {code}"


def run_worker(task, label, progress, timeout=None, env=None, abort=None):
    """Run the task's worker in a fresh process; return its JSON document, or a failed one saying why."""
    logged = getattr(task, "logs_first_run", None)
    if logged:
        # TensorFlow reads what to log as it loads: in the worker's environment from the start, so a forked worker
        # comes from a server whose import had it (processes.start keeps a server per load-time environment).
        env = {**logged, **(env or {})}
    return run_process(to_argv(task), label, progress, timeout, env, abort)


def run_process(argv, label, progress, timeout=None, env=None, abort=None):
    """Run `python <argv>` in a fresh worker, forked where processes.start allows; return its JSON document with how
    the worker started, or a failed one saying why.

    abort() is asked about twice a second; a reason it returns kills the worker and becomes the failure.
    """
    worker_env = environment(env)
    with progress.step(label) as say, tempfile.TemporaryFile() as out:
        proc = processes.start([sys.executable, *argv], stdout=out, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, env=worker_env, text=True, errors="replace")
        tail = deque(maxlen=20)
        reader = threading.Thread(target=_read_stderr, args=(proc.stderr, say, tail), daemon=True)
        reader.start()
        try:
            code, why = _wait(proc, timeout, abort)
        finally:
            # Ctrl-C or any error in the parent must not leave the worker running.
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        reader.join()
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    if why and why != _TIMED_OUT:
        return {"status": "failed", "error": why, "worker_start": proc.started}
    return {**_document(text, code, why == _TIMED_OUT, timeout, tail), "worker_start": proc.started}


_TIMED_OUT = "timed out"


def environment(env=None):
    """A worker's environment: this process's, TensorFlow's C++ start-up lines held back unless asked for, and env."""
    return {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2"), **(env or {})}


def _wait(proc, timeout, abort):
    """(exit status, None) once the worker exits; the worker killed and (status, why) on a timeout or an abort."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        step = 0.5 if abort else None
        if deadline is not None:
            step = max(0.0, min(step or timeout, deadline - time.monotonic()))
        try:
            return proc.wait(timeout=step), None
        except subprocess.TimeoutExpired:
            pass
        why = _TIMED_OUT if deadline is not None and time.monotonic() >= deadline else (abort() if abort else None)
        if why:
            proc.kill()
            return proc.wait(), why


def _read_stderr(stream, say, tail):
    """Pass the worker's phase lines to progress; keep its last other lines for the failure message."""
    for line in stream:
        if line.startswith(PHASE_PREFIX):
            say(line[len(PHASE_PREFIX):].strip())
        elif line.strip():
            tail.append(line.rstrip())


def _document(text, code, timed_out, timeout, tail):
    """The worker's document when it exited cleanly with one; otherwise a failed document saying why."""
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


def envelope(docs):
    """tf_version and the machine, with the devices the workers reported (the parent never imports TensorFlow)."""
    ok = [d for d in docs if d.get("status") == "ok"]
    tf_version = ok[0].get("tf_version") if ok else installed_tf_version()
    devices = ok[0].get("devices", []) if ok else []
    built = next((d["tf_build"] for d in ok if d.get("tf_build")), None)
    return tf_version, {**machine_info(devices), **({"tf_build": built} if built else {})}


def rotated(items, k):
    """items rotated left by k, so every item takes every position across trials."""
    items = list(items)
    if not items:
        return items
    k %= len(items)
    return items[k:] + items[:k]


def run_trials(tasks, trials, label, progress, timeout=None, run=None, full=None):
    """{task: [document per trial]} and every document in the order run; label(task) names a task in progress.

    run(task, label, progress, timeout) runs one worker (run_worker unless given). The first `full` trials
    (all unless given) run each task as it is; the others run task.headline(), the phases up to the first run.
    """
    docs = {task: [] for task in tasks}
    ran = []
    for trial in range(trials):
        for task in rotated(tasks, trial):
            name = label(task) + (f" trial {trial + 1}/{trials}" if trials > 1 else "")
            asked = task if full is None or trial < full else task.headline()
            doc = (run or run_worker)(asked, name, progress, timeout)
            docs[task].append(doc)
            ran.append(doc)
    return docs, ran
