"""The seed network, conv2d -> avg_pool -> ReLU on X [N,32,32,1], as a user asks for it and as one worker measures
it: compare's Config, which explain's (with presets) and sweep's (at several batches) extend, the SeedTask of one
worker, and how progress names a task."""

from dataclasses import asdict, dataclass, field, fields, replace
from typing import ClassVar

from tfgraphs.spec import common, tflog
from tfgraphs.spec.options import Option, batches
from tfgraphs.spec.network import DTYPES
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.protocol import choice
from tfgraphs.spec.remote import RETURN_KINDS
from tfgraphs.spec.samples import FEWEST, RANK_SUM
from tfgraphs.spec.tasks import traced_writes
from tfgraphs.spec.variants import COMPARED, VARIANTS

EXPLAINED = ("constant", "placeholder", "variable")   # explain's variants unless --variants says otherwise

@dataclass(frozen=True)
class SeedTask:
    """One measurement of the seed network: `timed` phases, the phases up to the `first-run` alone, `traced` runs,
    the 2 GiB tensor `limit` probe, or `single-thread` runs (one intra-op and one inter-op thread, as the classic
    constant folder evaluates)."""

    MODULE: ClassVar[str] = "tfgraphs.worker.seed"
    variant: str = choice(VARIANTS)
    batch: int = field()
    dtype: str = field(default="float64", metadata={"choices": DTYPES})
    runs: int = 10
    seed: int = 0
    preset: str = field(default="default", metadata={"choices": tuple(PRESETS)})
    mode: str = field(default="timed", metadata={"choices": ("timed", "first-run", "traced", "limit",
                                                             "single-thread")})
    trace_dir: str | None = None
    tensorboard_dir: str | None = None
    returns: str = field(default="output", metadata={"choices": RETURN_KINDS})
    target: str | None = None           # a grpc:// session target; None runs in-process
    network_device: str | None = None   # e.g. /job:worker/task:0 in a two-task cluster
    data_device: str | None = None      # where the variable variant's X lives, e.g. /job:ps/task:0

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.STAGES_ENV if self.mode == "traced" else None

    def headline(self):
        """This task measuring only the phases up to its first run (a timed task; any other mode as it is)."""
        return replace(self, mode="first-run") if self.mode == "timed" else self

    def writes(self):
        """(trace files, TensorBoard folder) the task writes; a remote run's traces sit beside the in-process ones."""
        return traced_writes(self, f"{self.variant}.{self.preset}" + (".remote" if self.target else ""), self.variant)


@dataclass(frozen=True)
class Config:
    """What the user asked of the seed network: its data, how many runs and fresh workers, which variants, where."""

    batch: int = common.BATCH.field()
    dtype: str = common.DTYPE.field()
    runs: int = common.RUNS.field()
    # A rank test tells two variants' first runs apart from 4 workers a side: the default judges its headline.
    trials: int = common.TRIALS.field(default=FEWEST[RANK_SUM])
    full_trials: int = common.FULL_TRIALS.field()
    seed: int = common.SEED.field()
    variants: tuple = common.CHOSEN_VARIANTS.field(default=COMPARED)
    target: str = common.TARGET.field()                      # "" in-process only
    baseline: bool = common.BASELINE.field()                 # with a target, measure the in-process rows too
    returns: tuple = common.RETURNS.field()
    place: str = common.PLACE.field()                        # where the variable lives in local:ps,worker
    connect_timeout: float = common.CONNECT_TIMEOUT.field()

    def to_dict(self):
        d = {**asdict(self), "variants": list(self.variants), "returns": list(self.returns)}
        if not self.target and self.returns == ("output",):
            # An in-process run's document stays as it was before remote sessions.
            for key in ("target", "baseline", "returns", "place", "connect_timeout"):
                d.pop(key)
        return d

    def task(self, variant, **how):
        """The worker task measuring `variant`; how = preset, mode, output folders, fetch and target."""
        return SeedTask(variant=variant, batch=self.batch, dtype=self.dtype, runs=self.runs, seed=self.seed, **how)

    def placements(self):
        """(target, fetch) of every row per variant: in-process first (target None), then remote."""
        where = ([None] if self.baseline or not self.target else []) + ([self.target] if self.target else [])
        return [(t, r) for t in where for r in self.returns]


@dataclass(frozen=True)
class ExplainConfig(Config):
    """The seed network's config, plus the presets to try."""

    variants: tuple = common.CHOSEN_VARIANTS.field(default=EXPLAINED)
    presets: tuple = common.CHOSEN_PRESETS.field()
    # Four first runs a side is the least at which the rank test can tell two presets apart: explain's headline
    # claims are such differences.
    trials: int = common.TRIALS.field(default=FEWEST[RANK_SUM])

    def __post_init__(self):
        # Every explain trial measures every phase, so each is a full one, whatever full_trials was given as.
        object.__setattr__(self, "full_trials", self.trials)

    def to_dict(self):
        # Every explain trial measures every phase: compare's full_trials says nothing here.
        return {**{k: v for k, v in super().to_dict().items() if k != "full_trials"}, "presets": list(self.presets)}


# The seed network's settings a sweep does not take: it sets the batch, and runs in-process only.
UNSWEPT = ("batch", "target", "baseline", "returns", "place", "connect_timeout")


@dataclass(frozen=True)
class SweepConfig(Config):
    """The seed network's config at each of several batches."""

    batches: tuple = Option((500, 1000, 2000, 4000), batches, "comma-separated batches, at least two",
                            metavar="N,N,...").field()
    # A median per worker is enough for a point's later run; growth between points is judged on one sample per fresh
    # worker, so the judge tells two points' first runs apart from 4 workers a point, the default; one of them
    # measures every phase (--full-trials), the others up to the first run.
    runs: int = common.RUNS.field(default=5)
    trials: int = common.TRIALS.field(default=FEWEST[RANK_SUM])
    full_trials: int = common.FULL_TRIALS.field()
    seed: int = common.SEED.field()
    variants: tuple = common.CHOSEN_VARIANTS.field(default=("constant", "placeholder"))

    def to_dict(self):
        kept = ("dtype", "runs", "trials", "full_trials", "seed", "variants")
        return {"batches": list(self.batches), **{k: v for k, v in super().to_dict().items() if k in kept}}

    def at(self, batch):
        """The seed network's config for one batch of the sweep."""
        return Config(**{**{f.name: getattr(self, f.name) for f in fields(Config)}, "batch": batch})


def label(task):
    """How progress names a seed task: its variant, then its preset, mode, fetch and target when not the default."""
    return (task.variant + (f" [{task.preset}]" if task.preset != "default" else "")
            + (f" {task.mode}" if task.mode != "timed" else "")
            + (f" returns {task.returns}" if task.returns != "output" else "")
            + (f" on {task.target}" if task.target else ""))
