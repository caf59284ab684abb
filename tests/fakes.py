"""The one stand-in for worker processes: tests stub workers with it, and it advances progress as the runner does."""

from tfgraphs.jobs import runner, servers


def seed_document(**changes):
    """A tiny ok document of a seed-network worker, with changes applied."""
    return {"status": "ok", "error": None, "tf_version": "x", "devices": [], "graph_bytes": 400,
            "const_bytes": 0, "nodes": 5, "build_s": 0.001, "serialize_s": 0.001, "session_s": 0.001,
            "init_s": None, "first_run_s": 0.2, "runs_s": [0.1, 0.1], "peak_rss_bytes": 10**9,
            "rss_bytes": {"start": 1, "data": 2}, "max_abs_err": 0.0, **changes}


def failed_document(error="worker killed by signal SIGKILL"):
    return {"status": "failed", "error": error}


class FakeWorkers:
    """Answers each task with answer(task, env) instead of starting a process; keeps (task, label, env) of each."""

    def __init__(self, answer):
        self.answer, self.calls = answer, []

    def __call__(self, task, label, progress, timeout=None, env=None, abort=None):
        with progress.step(label) as say:
            say("answered by a fake worker")
            self.calls.append((task, label, env or {}))
            return self.answer(task, env or {})

    @property
    def tasks(self):
        return [task for task, _, _ in self.calls]


def install(monkeypatch, answer):
    """Stub every worker with answer(task, env) for the rest of the test; return the FakeWorkers."""
    fake = FakeWorkers(answer)
    monkeypatch.setattr(runner, "run_worker", fake)
    # A fake worker reaches no server, so no grpc:// target is asked whether it answers.
    monkeypatch.setattr(servers, "check_reachable", lambda where, wait_s: None)
    return fake


def in_process(task, env=None):
    """Answer a task with its real worker's measure() run in this process: real TensorFlow, no start-up per task."""
    import importlib

    module = importlib.import_module(task.MODULE)
    try:
        return {"status": "ok", "error": None, **module.measure(task)}
    except Exception as exc:  # as the protocol does: the first line of the message, after the exception's type
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return {"status": "failed", "error": f"{type(exc).__name__}: {message}"[:500]}


def results(command, config, rows, extra=None, **more):
    """A command's typed results from its config and other sections as its saved document holds them."""
    from tfgraphs.records.results import DOCUMENTS

    kind = DOCUMENTS[command]
    # A test's config names what it is about; the rest is the Config's default.
    # trials, full_trials and later_every_trial are left to the reader, which reads their absence as documents
    # before them meant.
    defaults = {k: v for k, v in kind.config_type().to_dict().items()
                if k not in ("trials", "full_trials", "later_every_trial")}
    full = {**defaults, **config} if isinstance(config, dict) and "path" not in config else config
    asked = kind.read_config(full) if isinstance(config, dict) else config
    return kind(config=asked, rows=tuple(rows), **kind.read_sections(extra or {}), **more)
