"""The compare job: every chosen variant, in fresh workers, for K trials in rotating order."""

from dataclasses import asdict, dataclass

from tfgraphs import limits, network, runner
from tfgraphs.results import Measurement, Report, Row, machine_info
from tfgraphs.variants import DEFAULT_VARIANTS, VARIANTS


@dataclass(frozen=True)
class Config:
    """What the user asked to measure."""

    batch: int = 6000
    dtype: str = "float64"
    runs: int = 10
    trials: int = 1
    seed: int = 0
    variants: tuple = DEFAULT_VARIANTS

    def to_dict(self):
        return {**asdict(self), "variants": list(self.variants)}


@dataclass(frozen=True)
class Job:
    """One worker's assignment."""

    variant: str
    preset: str = "default"
    mode: str = "timed"


def refusals(config):
    """{variant: reason} for embedded variants whose copies of X would not fit under the 2 GiB GraphDef limit."""
    size = network.data_bytes(config.batch, config.dtype)
    out = {}
    for v in config.variants:
        copies = VARIANTS[v].copies_in_graph
        if copies and not limits.embedded_fits(config.batch, config.dtype, copies):
            held = f"X would be {size:,} bytes" + (f", held {copies} times," if copies > 1 else "")
            out[v] = (f"{v}: {held} past the 2 GiB GraphDef limit; the largest {config.dtype} batch that fits "
                      f"is {limits.max_embedded_batch(config.dtype, copies):,}")
    return out


def worker_argv(config, job, trace_dir=None, tensorboard_dir=None):
    """The worker's whole job as flags."""
    argv = ["-m", "tfgraphs.worker", "--variant", job.variant, "--batch", str(config.batch),
            "--dtype", config.dtype, "--runs", str(config.runs), "--seed", str(config.seed),
            "--preset", job.preset, "--mode", job.mode]
    if trace_dir:
        argv += ["--trace-dir", trace_dir]
    if tensorboard_dir:
        argv += ["--tensorboard-dir", tensorboard_dir]
    return argv


def run_jobs(config, jobs, progress, timeout=None, **dirs):
    """Run every job config.trials times, rotating the order each trial; {job: [Measurement, ...]}."""
    results = {job: [] for job in jobs}
    docs = []
    for trial in range(config.trials):
        for job in runner.rotated(jobs, trial):
            label = f"{job.variant}" + (f" [{job.preset}]" if job.preset != "default" else "")
            label += f" {job.mode}" if job.mode != "timed" else ""
            label += f" trial {trial + 1}/{config.trials}" if config.trials > 1 else ""
            doc = runner.run_worker(worker_argv(config, job, **dirs), label, progress, timeout)
            docs.append(doc)
            results[job].append(Measurement.from_dict(doc))
    return results, docs


def envelope(docs):
    """tf_version and devices as the workers reported them (the parent never imports TensorFlow)."""
    ok = [d for d in docs if d.get("status") == "ok"]
    tf_version = ok[0].get("tf_version") if ok else _installed_tf_version()
    devices = ok[0].get("devices", []) if ok else []
    return tf_version, machine_info(devices)


def _installed_tf_version():
    from importlib import metadata
    try:
        return metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        return None


def run(config, progress, timeout=None):
    """Measure every variant that fits; refused variants become failed rows saying why."""
    refused = refusals(config)
    jobs = [Job(v) for v in config.variants if v not in refused]
    measured, docs = run_jobs(config, jobs, progress, timeout)
    rows = []
    for v in config.variants:
        if v in refused:
            rows.append(Row(status="failed", error=refused[v], variant=v))
        else:
            rows.append(Row.from_trials(v, measured[Job(v)]))
    tf_version, machine = envelope(docs)
    return Report("compare", config.to_dict(), tuple(rows), tf_version=tf_version, machine=machine)
