"""The shape-churn modes: the ways a 1-D convolution meets input lengths it has not seen, the per-shape switches,
and the task of one shapes worker."""

from dataclasses import dataclass, field
from typing import ClassVar

from tfgraphs.spec.protocol import choice

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
