"""The sweep job: every variant at every batch in fresh workers, a line fitted to graph sizes, and the limit tried."""

from dataclasses import asdict, dataclass, replace

from tfgraphs import compare, growth, limits, network, runner
from tfgraphs.compare import Job
from tfgraphs.results import Report

LIMIT_VARIANT = "constant"   # the variant whose predicted limit is put to TensorFlow


@dataclass(frozen=True)
class Config:
    """What the user asked to sweep."""

    batches: tuple = (500, 1000, 2000, 4000)
    dtype: str = "float64"
    runs: int = 5               # a median per point is enough here: a sweep is about growth, not run-to-run noise
    trials: int = 1
    seed: int = 0
    variants: tuple = ("constant", "placeholder")

    def to_dict(self):
        return {**asdict(self), "batches": list(self.batches), "variants": list(self.variants)}

    def at(self, batch):
        """compare's config for one batch of the sweep."""
        return compare.Config(batch=batch, dtype=self.dtype, runs=self.runs, trials=self.trials, seed=self.seed,
                              variants=self.variants)


def refusals(config):
    """{(batch, variant): reason} for the points whose X would not fit under the 2 GiB GraphDef limit."""
    return {(b, v): reason for b in config.batches for v, reason in compare.refusals(config.at(b)).items()}


def may_probe(config):
    """True when the limit probe can happen: its variant is swept at two or more batches that are not refused."""
    refused = refusals(config)
    return LIMIT_VARIANT in config.variants and sum((b, LIMIT_VARIANT) not in refused for b in config.batches) >= 2


def workers(config):
    """How many workers the sweep may start: the points not refused, times trials, and the limit probe if it can."""
    points = len(config.batches) * len(config.variants) - len(refusals(config))
    return points * config.trials + may_probe(config)


def probe_limit(config, fits, progress, timeout=None):
    """Ask TensorFlow to embed X at the first batch past the predicted limit; what it said, or why it was not asked.

    workers() counted the probe when it could run; when it does not start a worker it takes itself off the total.
    """
    if not may_probe(config):
        return None
    fit = next((f for f in fits if f.variant == LIMIT_VARIANT), None)
    if fit is None or fit.max_batch is None:
        progress.total -= 1
        return None
    batch = fit.max_batch + 1
    out = {"variant": LIMIT_VARIANT, "batch": batch, "data_bytes": network.data_bytes(batch, config.dtype),
           "predicted_max_batch": fit.max_batch, "refused": None, "message": None, "failure": None}
    if out["data_bytes"] < limits.GRAPHDEF_LIMIT:
        # The worker asks only TensorFlow's check on a single tensor, which lets anything under 2 GiB through.
        out["failure"] = (f"X alone would be {out['data_bytes']:,} bytes, under 2 GiB, and the probe tests "
                          f"only TensorFlow's check on a single tensor, which refuses 2 GiB or more")
        progress.total -= 1
        return out
    argv = compare.worker_argv(config.at(batch), Job(LIMIT_VARIANT, mode="limit"))
    doc = runner.run_worker(argv, f"{LIMIT_VARIANT} at batch {batch:,} (limit)", progress, timeout)
    if doc.get("status") != "ok":
        return {**out, "failure": doc.get("error")}
    # Resident memory around the call is recorded by workers that measure it; older ones leave it out.
    measured = {k: doc[k] for k in ("rss_before_bytes", "rss_after_bytes") if doc.get(k) is not None}
    return {**out, "refused": doc["refused"], "message": doc["message"], **measured}


def run(config, progress, timeout=None):
    """Measure every batch x variant that fits (refused points become failed rows), fit, then probe the limit."""
    rows, tf_version, machine = [], None, {}
    for batch in config.batches:
        progress.context = f"batch {batch:,} "
        part = compare.run(config.at(batch), progress, timeout)
        rows += [replace(r, batch=batch) for r in part.rows]
        tf_version = tf_version or part.tf_version
        if not machine.get("devices"):
            machine = part.machine
    progress.context = ""
    fits = growth.fit_all(rows, config.variants)
    probe = probe_limit(config, fits, progress, timeout)
    return Report("sweep", config.to_dict(), tuple(rows), tf_version=tf_version, machine=machine,
                  extra={"fit": [f.to_dict() for f in fits], "tf_error": probe})
