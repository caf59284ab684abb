"""Measuring on a grpc:// target: a fresh server per worker when tfgraphs starts them, placement, and rows."""

from dataclasses import fields, replace

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner, servers
from tfgraphs.spec import remote
from tfgraphs.spec.remote import parse_target

# Where the network and X go in the two-task cluster `local:ps,worker`.
NETWORK_DEVICE = "/job:worker/task:0"
PLACES = {"ps": "/job:ps/task:0", "worker": NETWORK_DEVICE}


def check(config):
    """Refuse remote options that need one another, and an existing server that does not answer, before any work."""
    where = parse_target(config.target)
    place = next(f for f in fields(config) if f.name == "place")
    if config.place != place.default and len(where.jobs) < 2:
        raise UsageError("--place needs --target local:ps,worker, the only cluster with a second task")
    if not config.baseline and not where.remote:
        raise UsageError("--no-baseline needs --target: without one only in-process rows are measured")
    if where.remote and not where.starts_servers:
        servers.check_reachable(where, config.connect_timeout)


def refusals(config, variants):
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
