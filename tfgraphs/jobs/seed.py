"""The seed network's job: which variants to refuse, the plan, and every chosen variant measured in fresh workers for
K trials in rotating order (the first `full_trials` measuring every phase, the others up to the first run), in-process
or on a grpc:// target, on a fresh server per worker when tfgraphs starts them. compare is this job as it is; explain
and sweep build theirs from its parts."""

from dataclasses import fields, replace

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner, servers
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.results import CompareResults
from tfgraphs.records.rows import Measurement, Row
from tfgraphs.spec import limits, network, remote
from tfgraphs.spec.remote import parse_target
from tfgraphs.spec.seed import label


def refusals(config):
    """{variant: reason} for embedded variants past a 2 GiB limit (the tensor's or the serialized GraphDef's)."""
    found = {v: limits.refusal(v, config.batch, config.dtype) for v in config.variants}
    return {v: reason for v, reason in found.items() if reason}


def runnable(config, refused):
    return [v for v in config.variants if v not in refused]


def plan(config):
    """Refused variants and remote rows, and one worker per trial of every other row."""
    check_remote(config)
    refused = refusals(config)
    ok = runnable(config, refused)
    refused.update(remote_refusals(config, ok))
    rows = [(v, t, f) for v in ok for t, f in config.placements() if not (t and (v, f) in refused)]
    return Plan(refused, tuple(refused.values()), workers=len(rows) * config.trials,
                seed_workers=tuple((v, config.batch, config.dtype) for v in ok))


def measure(config, refused, progress, timeout=None, prefix=""):
    """(rows, documents): a row per variant and placement, refused ones failed with the reason; prefix starts labels."""
    keys = [(v, t, f) for v in config.variants for t, f in config.placements()]

    def why(v, t, f):
        return refused.get(v) or (refused.get((v, f)) if t else None)
    tasks = {key: config.task(key[0], target=key[1], returns=key[2]) for key in keys if not why(*key)}
    docs, ran = runner.run_trials(list(tasks.values()), config.trials, lambda t: prefix + label(t), progress,
                                  timeout, run=worker_runner(config), full=config.full_trials)
    rows = [asked_place(Row.refused(key[0], why(*key)) if why(*key)
                        else Row.from_trials(key[0], [Measurement.from_worker(d) for d in docs[tasks[key]]]), *key[1:])
            for key in keys]
    activations = int(network.activation_bytes(config.batch, config.dtype))
    return [replace(r, activation_bytes=activations) for r in rows], ran


def asked_place(row, target, returns):
    """row, placed where its task asked when no worker said so (a refused row, or one whose every trial failed)."""
    if not target or row.target is not None:
        return row
    return replace(row, target=target, returns=row.returns or returns)


def run(config, plan, progress, timeout=None):
    """compare's results: every variant the plan did not refuse, measured."""
    rows, ran = measure(config, plan.refused, progress, timeout)
    tf_version, machine = runner.envelope(ran)
    return CompareResults(config, tuple(rows), tf_version=tf_version, machine=machine)


# Where the network and X go in the two-task cluster `local:ps,worker`.
NETWORK_DEVICE = "/job:worker/task:0"
PLACES = {"ps": "/job:ps/task:0", "worker": NETWORK_DEVICE}


def check_remote(config):
    """Refuse remote options that need one another, and an existing server that does not answer, before any work."""
    where = parse_target(config.target)
    place = next(f for f in fields(config) if f.name == "place")
    if config.place != place.default and len(where.jobs) < 2:
        raise UsageError("--place needs --target local:ps,worker, the only cluster with a second task")
    if not config.baseline and not where.remote:
        raise UsageError("--no-baseline needs --target: without one only in-process rows are measured")
    if where.remote and not where.starts_servers:
        servers.check_reachable(where, config.connect_timeout)


def remote_refusals(config, variants):
    """{(variant, returns): reason} for remote runs whose GraphDef, feed or fetched result exceeds one gRPC message."""
    if not parse_target(config.target).remote:
        return {}
    found = {(v, r): remote.refusal(v, config.batch, config.dtype, r) for v in variants for r in config.returns}
    return {key: reason for key, reason in found.items() if reason}


def worker_runner(config):
    """run(task, label, progress, timeout): in-process tasks as they are, remote ones on their server."""
    target = parse_target(config.target)

    def run(task, label, progress, timeout=None):
        if task.target is None:
            return runner.run_worker(task, label, progress, timeout)
        if target.starts_servers:
            return _on_started(task, target, config.place, label, progress, timeout)
        return runner.run_worker(replace(task, target=target.spec), label, progress, timeout,
                                 abort=servers.watch_address(target.host, target.port))
    return run


def _on_started(task, target, place, label, progress, timeout):
    """Start the task's own servers, run its worker on them, and end them however the worker ends."""
    try:
        with servers.started(target.jobs) as cluster:
            if len(target.jobs) > 1:
                task = replace(task, target=cluster.targets["worker"], network_device=NETWORK_DEVICE,
                               data_device=PLACES[place])
            else:
                task = replace(task, target=cluster.targets[target.jobs[0]])
            return runner.run_worker(task, label, progress, timeout, abort=cluster.gone)
    except servers.ServerError as exc:
        progress.skip(label, str(exc))
        return {"status": "failed", "error": str(exc)}
