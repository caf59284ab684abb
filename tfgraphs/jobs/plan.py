"""What a job will do, worked out once before any worker starts: refusals, the worker count, the memory it needs."""

from dataclasses import dataclass

from tfgraphs import machine
from tfgraphs.errors import UsageError
from tfgraphs.spec.limits import estimate_peak_bytes


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
        return self.workers > 0


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
