"""The seed network's job: which variants to refuse, the plan, and every chosen variant measured in fresh workers for
K trials in rotating order (the first `full_trials` measuring every phase, the others up to the first run). compare
is this job as it is; explain and sweep build theirs from its parts."""

from dataclasses import replace

from tfgraphs.jobs import remote, runner
from tfgraphs.jobs.plan import Plan
from tfgraphs.records.results import CompareResults
from tfgraphs.records.rows import Measurement, Row
from tfgraphs.spec import limits, network
from tfgraphs.spec.seed import label


def refusals(config):
    """{variant: reason} for embedded variants past a 2 GiB limit (the tensor's or the serialized GraphDef's)."""
    found = {v: limits.refusal(v, config.batch, config.dtype) for v in config.variants}
    return {v: reason for v, reason in found.items() if reason}


def runnable(config, refused):
    return [v for v in config.variants if v not in refused]


def plan(config):
    """Refused variants and remote rows, and one worker per trial of every other row."""
    remote.check(config)
    refused = refusals(config)
    ok = runnable(config, refused)
    refused.update(remote.refusals(config, ok))
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
                                  timeout, run=remote.worker_runner(config), full=config.full_trials)
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
