"""The sweep job: every variant at every batch in fresh workers, a line fitted to graph sizes, and the limit tried."""

from dataclasses import replace

from tfgraphs.jobs import runner, seed
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.sweep import fit_all
from tfgraphs.records.results import SweepResults
from tfgraphs.spec import limits, network

LIMIT_VARIANT = "constant"   # the variant whose predicted limit is put to TensorFlow
def may_probe(config, refused):
    """True when the limit probe can happen: its variant is swept at two or more batches that are not refused."""
    return LIMIT_VARIANT in config.variants and sum((b, LIMIT_VARIANT) not in refused for b in config.batches) >= 2


def plan(config):
    """Refused points; one worker per trial of every other point, and one for the limit probe when it may run."""
    parts = {b: seed.plan(config.at(b)) for b in config.batches}
    refused = {(b, v): reason for b, p in parts.items() for v, reason in p.refused.items()}
    points = sum(p.workers for p in parts.values())
    return Plan(refused, tuple(f"batch {b:,}: {reason}" for (b, _), reason in refused.items()),
                workers=points + may_probe(config, refused) if points else 0,
                seed_workers=tuple(n for p in parts.values() for n in p.seed_workers))


def probe_limit(config, fits, progress, timeout=None):
    """Ask TensorFlow to embed X at the first batch past the predicted limit; what it said, or why it was not asked."""
    fit = next((f for f in fits if f.variant == LIMIT_VARIANT), None)
    label = f"{LIMIT_VARIANT} (limit)"
    if fit is None or fit.max_batch is None:
        progress.skip(label, f"no fitted limit for {LIMIT_VARIANT}")
        return None
    batch = fit.max_batch + 1
    out = {"variant": LIMIT_VARIANT, "batch": batch, "data_bytes": network.data_bytes(batch, config.dtype),
           "predicted_max_batch": fit.max_batch, "refused": None, "message": None, "failure": None}
    if out["data_bytes"] < limits.TENSOR_LIMIT:
        # The worker asks only TensorFlow's check on a single tensor, which lets anything under 2 GiB through.
        out["failure"] = (f"X alone would be {out['data_bytes']:,} bytes, under 2 GiB, and the probe tests "
                          f"only the {limits.TENSOR}, not the {limits.GRAPHDEF}")
        progress.skip(label, "X would be under 2 GiB")
        return out
    task = config.at(batch).task(LIMIT_VARIANT, mode="limit")
    doc = runner.run_worker(task, f"{LIMIT_VARIANT} at batch {batch:,} (limit)", progress, timeout)
    if doc.get("status") != "ok":
        return {**out, "failure": doc.get("error")}
    return {**out, "refused": doc["refused"], "message": doc["message"], "rss_before_bytes": doc["rss_before_bytes"],
            "rss_after_bytes": doc["rss_after_bytes"]}


def run(config, plan, progress, timeout=None):
    """Measure every batch x variant the plan did not refuse, fit, then probe the limit if the plan counted it."""
    rows, ran = [], []
    for batch in config.batches:
        refused = {v: reason for (b, v), reason in plan.refused.items() if b == batch}
        part, docs = seed.measure(config.at(batch), refused, progress, timeout, prefix=f"batch {batch:,} ")
        rows += [replace(r, batch=batch) for r in part]
        ran += docs
    fits = fit_all(rows, config.variants)
    probe = probe_limit(config, fits, progress, timeout) if may_probe(config, plan.refused) else None
    tf_version, machine = runner.envelope(ran)
    return SweepResults(config, tuple(rows), tf_version=tf_version, machine=machine, fits=tuple(fits),
                        tf_error=probe)
