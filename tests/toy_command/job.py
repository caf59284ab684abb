"""The toy command's job: what it is asked (its Config), what its one worker is told (ToyTask), plan and run."""

from dataclasses import dataclass, field
from typing import ClassVar

from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.schema import read_worker
from tfgraphs.spec.options import Option, Whole
from toy_command.record import MEASURED, Toy


@dataclass(frozen=True)
class Config:
    """How large a constant to measure."""

    # 10 million float32 values: 40 MB, a toy's worth, far under the 2 GiB GraphDef limit.
    size: int = Option(1000, Whole(most=10_000_000), "float32 elements in the constant", metavar="N").field()


# Its worker imports it from here; inside tfgraphs it would sit in spec/, the one layer both jobs/ and worker/ import.
@dataclass(frozen=True)
class ToyTask:
    """One worker's measurement: a constant of `size` float32 values, its GraphDef and one sess.run."""

    MODULE: ClassVar[str] = "toy_command.worker"
    size: int = field()


def plan(config):
    """Nothing to refuse: one worker."""
    return Plan(refused={}, notices=(), workers=1)


def run(config, plan, progress, timeout=None):
    """The Toy its one worker measured, or a failed one saying why."""
    doc = read_worker(Toy, runner.run_worker(ToyTask(size=config.size), f"size {config.size:,}", progress, timeout))
    tf_version, machine = runner.envelope([doc])
    return Toy(size=config.size, status=doc["status"], error=doc.get("error"), worker_start=doc.get("worker_start"),
               tf_version=tf_version, machine=machine, **{k: doc[k] for k in MEASURED if k in doc})
