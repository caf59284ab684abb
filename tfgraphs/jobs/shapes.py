"""The shapes job: each mode over many input lengths, twice, in a fresh worker, plus the backend switch turned off."""

from dataclasses import asdict, dataclass

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.jobs.plan import Plan
from tfgraphs.records.results import Results
from tfgraphs.records.schema import read_worker
from tfgraphs.records.rows import ModeRun
from tfgraphs.spec import common
from tfgraphs.spec.options import Names, Option, Whole
from tfgraphs.spec.shapes import DTYPE, MODES, SWITCHES_ON, ShapesTask, switch_for

SWITCHED = ("eager",)   # the modes run a second time with the switch off unless --switch-modes says otherwise


@dataclass(frozen=True)
class Config:
    """What the user asked to measure."""

    start: int = Option(10000, Whole(), "shortest input length").field()
    count: int = Option(30, Whole(least=3, most=100_000, why="the first length is left out as the worker's "
                                  "start-up, and two lengths are the fewest pairs to set side by side"),
                        "how many lengths: start, start+1, ...; 7 or more (6 pairs after the first) let the paired "
                        "test find a difference").field()
    batch: int = Option(10, Whole(), "signals per call").field()
    channels: int = Option(200, Whole(), "input channels").field()
    filters: int = Option(100, Whole(), "output channels").field()
    kernel: int = Option(10, Whole(), "kernel length, at most --start").field()
    block: int = Option(1024, Whole(), "blocked mode's output block length; every inner convolution then sees one "
                                       "fixed shape").field()
    passes: int = Option(3, Whole(most=1_000), "passes over every length; pass 1 meets each length for the first "
                                               "time, and blocked's pass 2 against its pass 3 is the control, work "
                                               "that must not differ").field()
    seed: int = common.SEED.field()
    modes: tuple = Option(MODES, Names(MODES, "mode"), f"comma-separated, from {', '.join(MODES)}",
                          shown="all").field()
    # None: those of SWITCHED in modes, so the default never names a mode that does not run.
    switch_modes: tuple | None = Option(None, Names(MODES, "mode", none="none", optional=True), "modes of --modes also run with "
                                        "the device's per-shape switch off, TF_ENABLE_ONEDNN_OPTS=0 on CPU or "
                                        "TF_CUDNN_USE_AUTOTUNE=0 on a GPU; 'none' for none",
                                        shown=f"{','.join(SWITCHED)}, those of them in --modes").field()

    def __post_init__(self):
        if self.switch_modes is None:
            object.__setattr__(self, "switch_modes", tuple(m for m in SWITCHED if m in self.modes))

    def to_dict(self):
        # The dtype is not a setting: every worker runs in spec.shapes.DTYPE, and the document says which.
        return {**asdict(self), "modes": list(self.modes), "switch_modes": list(self.switch_modes), "dtype": DTYPE}

    @property
    def lengths(self):
        return range(self.start, self.start + self.count)

    def task(self, mode):
        return ShapesTask(mode=mode, start=self.start, count=self.count, batch=self.batch, channels=self.channels,
                          filters=self.filters, kernel=self.kernel, block=self.block, passes=self.passes,
                          seed=self.seed)


def plan(config):
    """Refuse settings that depend on each other; one worker per mode, and one per switch mode."""
    if config.kernel > config.start:
        raise UsageError(f"--kernel {config.kernel} is longer than the shortest length (--start "
                         f"{config.start}); a VALID convolution needs length >= kernel")
    missing = [m for m in config.switch_modes if m not in config.modes]
    if missing:
        raise UsageError(f"--switch-modes {','.join(missing)} not in --modes; a switch mode is compared "
                         f"with its run in --modes, so add it there or drop it")
    longest = config.start + config.count - 1
    itemsize = np.dtype(DTYPE).itemsize
    data = itemsize * (config.batch * longest * (config.channels + config.filters)
                       + config.kernel * config.channels * config.filters)
    holds = ((f"X [{config.batch}, {longest:,}, {config.channels:,}], W and the output ({DTYPE})", data,
              "a smaller --start, --count, --batch, --channels or --filters"),)
    return Plan({}, (), workers=len(config.modes) + len(config.switch_modes), holds=holds)


def run(config, plan, progress, timeout=None):
    """Every mode with both switches on; then the switch modes with the device's switch off."""
    runs, docs = [], []

    def one(mode, env):
        label = mode + "".join(f" [{k}={v}]" for k, v in env.items() if v != SWITCHES_ON[k])
        doc = runner.run_worker(config.task(mode), label, progress, timeout, env=env)
        docs.append(doc)
        runs.append(ModeRun.from_worker(mode, {"env": env, **read_worker(ModeRun, doc)}, config.batch, config.lengths))

    for mode in config.modes:
        one(mode, SWITCHES_ON)
    # The first worker that ran says which devices exist; the parent cannot ask TensorFlow itself.
    devices = next((d.get("devices", []) for d in docs if d.get("status") == "ok"), None)
    switch = None if devices is None else switch_for(devices)
    for mode in config.switch_modes:
        if switch:
            one(mode, {**SWITCHES_ON, switch: "0"})
        else:
            progress.skip(f"{mode} [switch off]", "no worker reported its devices")
    tf_version, machine = runner.envelope(docs)
    # "order" tells a reader of the document that the passes ran interleaved (older documents ran them pass by pass).
    return Results("shapes", config.to_dict(), tuple(runs), tf_version=tf_version, machine=machine,
                  extra={"switch": switch, "order": "interleaved"})
