"""The compare job: every chosen variant, in fresh workers, for K trials in rotating order."""

from dataclasses import asdict, dataclass, replace

from tfgraphs.jobs import runner
from tfgraphs.jobs.plan import Plan
from tfgraphs.jobs.trials import run_trials
from tfgraphs.records.report import Report
from tfgraphs.records.rows import Measurement, Row
from tfgraphs.spec import limits, network
from tfgraphs.spec.tasks import SeedTask
from tfgraphs.spec.variants import COMPARED


@dataclass(frozen=True)
class Config:
    """What the user asked to measure."""

    batch: int = 6000
    dtype: str = "float64"
    runs: int = 10
    trials: int = 1
    seed: int = 0
    variants: tuple = COMPARED

    def to_dict(self):
        return {**asdict(self), "variants": list(self.variants)}

    def task(self, variant, **how):
        """The worker task measuring `variant`; how = preset, mode and output folders."""
        return SeedTask(variant=variant, batch=self.batch, dtype=self.dtype, runs=self.runs, seed=self.seed, **how)


def label(task):
    """How progress names a seed task: its variant, then its preset and mode when not the default."""
    return (task.variant + (f" [{task.preset}]" if task.preset != "default" else "")
            + (f" {task.mode}" if task.mode != "timed" else ""))


def refusals(config):
    """{variant: reason} for embedded variants past a 2 GiB limit (the tensor's or the serialized GraphDef's)."""
    found = {v: limits.refusal(v, config.batch, config.dtype) for v in config.variants}
    return {v: reason for v, reason in found.items() if reason}


def runnable(config, refused):
    return [v for v in config.variants if v not in refused]


def plan(config):
    """Refused variants, and one worker per trial of every other variant."""
    refused = refusals(config)
    ok = runnable(config, refused)
    return Plan(refused, tuple(refused.values()), workers=len(ok) * config.trials,
                needs=tuple((v, config.batch, config.dtype) for v in ok))


def measure(config, refused, progress, timeout=None, prefix=""):
    """(rows, documents): a row per variant, refused ones failed with the reason; prefix starts each progress label."""
    tasks = [config.task(v) for v in runnable(config, refused)]
    docs, ran = run_trials(tasks, config.trials, lambda t: prefix + label(t), progress, timeout)
    rows = [Row.refused(v, refused[v]) if v in refused
            else Row.from_trials(v, [Measurement.from_dict(d) for d in docs[config.task(v)]])
            for v in config.variants]
    activations = int(network.activation_bytes(config.batch, config.dtype))
    return [replace(r, activation_bytes=activations) for r in rows], ran


def run(config, plan, progress, timeout=None):
    """Measure every variant the plan did not refuse."""
    rows, ran = measure(config, plan.refused, progress, timeout)
    tf_version, machine = runner.envelope(ran)
    return Report("compare", config.to_dict(), tuple(rows), tf_version=tf_version, machine=machine)
