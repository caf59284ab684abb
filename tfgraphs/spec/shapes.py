"""The shape-churn modes: the ways a 1-D convolution meets input lengths it has not seen, the per-shape switches,
the Config a user asks for, and the task of one shapes worker."""

from dataclasses import asdict, dataclass, field
from typing import ClassVar

from tfgraphs.processes import choice
from tfgraphs.spec.options import SEED, Names, Option, Whole

MODES = ("eager", "keras", "function", "function-relaxed", "function-signature", "graph", "blocked")
DTYPE = "float32"   # only float32 for now, as in the seed

# The per-shape switches: oneDNN on a CPU, cuDNN autotuning on a GPU. Each worker reports what it saw set.
ONEDNN, AUTOTUNE = "TF_ENABLE_ONEDNN_OPTS", "TF_CUDNN_USE_AUTOTUNE"
SWITCHES = (ONEDNN, AUTOTUNE)
SWITCH_NAMES = {ONEDNN: "oneDNN", AUTOTUNE: "cuDNN autotuning"}

# Every worker gets both switches on, stated rather than left to the platform's default; the switch the device
# has (cuDNN autotuning on a GPU, oneDNN on a CPU) is then also turned off for the switch modes.
SWITCHES_ON = {ONEDNN: "1", AUTOTUNE: "1"}


def switch_for(devices):
    """The per-shape switch of the device the convolution will run on: cuDNN autotuning if a GPU is visible."""
    # The GPU branch is untested: no machine with a GPU has run it.
    return AUTOTUNE if any("GPU" in d for d in devices) else ONEDNN


@dataclass(frozen=True)
class ShapesTask:
    """One shape-churn mode over every length, once per pass."""

    MODULE: ClassVar[str] = "tfgraphs.worker.shapes"
    mode: str = choice(MODES)
    start: int = field()
    count: int = field()
    batch: int = field()
    channels: int = field()
    filters: int = field()
    kernel: int = field()
    block: int = field()
    passes: int = field()
    seed: int = field()


SWITCHED = ("eager",)   # the modes run a second time with the switch off unless --switch-modes says otherwise


@dataclass(frozen=True)
class Config:
    """What the user asked of the shapes modes: the lengths, the convolution, the passes and the modes."""

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
    # One worker a mode judges each mode within its worker; setting modes (or the switch on and off) against each
    # other rests on one sample a worker, and a rank test needs 4 a side.
    trials: int = Option(1, Whole(most=1_000), "fresh workers per mode (and per switch mode), in rotating order; "
                         "modes, and the switch on against off, are compared one median a worker, so 4 or more let "
                         "the judge tell them apart").field()
    seed: int = SEED.field()
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
        d = {**asdict(self), "modes": list(self.modes), "switch_modes": list(self.switch_modes), "dtype": DTYPE}
        if self.trials == 1:
            d.pop("trials")   # absent reads as one worker a mode
        return d

    @property
    def dtype(self):
        """What every worker runs in: spec.shapes.DTYPE, not a setting."""
        return DTYPE

    @property
    def lengths(self):
        return range(self.start, self.start + self.count)

    def task(self, mode):
        return ShapesTask(mode=mode, start=self.start, count=self.count, batch=self.batch, channels=self.channels,
                          filters=self.filters, kernel=self.kernel, block=self.block, passes=self.passes,
                          seed=self.seed)
