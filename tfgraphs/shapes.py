"""The shapes job: each mode over many input lengths, twice, in a fresh worker, plus the backend switch turned off."""

from dataclasses import asdict, dataclass, field, fields

from tfgraphs import limits, runner
from tfgraphs.compare import envelope
from tfgraphs.results import Report
from tfgraphs.stats import median_or_none

MODES = ("eager", "keras", "function", "function-relaxed", "function-signature", "graph", "blocked")
# The per-shape switches: oneDNN on a CPU, cuDNN autotuning on a GPU. Each worker reports what it saw set.
ONEDNN, AUTOTUNE = "TF_ENABLE_ONEDNN_OPTS", "TF_CUDNN_USE_AUTOTUNE"
SWITCHES = (ONEDNN, AUTOTUNE)

# Every worker gets both switches on, stated rather than left to the platform's default; the switch the device
# has (cuDNN autotuning on a GPU, oneDNN on a CPU) is then also turned off for the switch modes.
SWITCHES_ON = {ONEDNN: "1", AUTOTUNE: "1"}


@dataclass(frozen=True)
class Config:
    """What the user asked to measure."""

    start: int = 10000
    count: int = 30
    batch: int = 10
    channels: int = 200
    filters: int = 100
    kernel: int = 10
    block: int = 1024
    passes: int = 2
    seed: int = 0
    dtype: str = "float32"   # only float32 for now, as in the seed
    modes: tuple = MODES
    switch_modes: tuple = ("eager",)

    def to_dict(self):
        return {**asdict(self), "modes": list(self.modes), "switch_modes": list(self.switch_modes)}

    def check(self):
        """Raise UsageError for settings argparse cannot judge alone: they depend on each other."""
        if self.count < 3:
            raise limits.UsageError(f"--count {self.count} is too few: the first length is left out as the worker's "
                                    f"start-up, and a spread needs 2 lengths more; use --count 3 or more")
        if self.kernel > self.start:
            raise limits.UsageError(f"--kernel {self.kernel} is longer than the shortest length (--start "
                                    f"{self.start}); a VALID convolution needs length >= kernel")
        missing = [m for m in self.switch_modes if m not in self.modes]
        if missing:
            raise limits.UsageError(f"--switch-modes {','.join(missing)} not in --modes; a switch mode is compared "
                                    f"with its run in --modes, so add it there or drop it")

    @property
    def lengths(self):
        return range(self.start, self.start + self.count)


@dataclass(frozen=True)
class ModeRun:
    """One mode in one worker: every call's time, per pass and per length, and what it traced."""

    mode: str
    status: str = "ok"
    error: str | None = None
    device: str | None = None
    traces: int | None = None
    times_s: tuple = ()     # one tuple per pass, one time per length
    khz: tuple = ()         # per pass: median over lengths after the first of batch * length / 1000 / s
    env: dict = field(default_factory=dict)
    max_rel_err: float | None = None

    @property
    def ok(self):
        return self.status == "ok"

    @classmethod
    def from_worker(cls, mode, doc, config):
        """A record from a worker's document, with the throughput computed here."""
        times = tuple(tuple(p) for p in doc.get("times_s") or ())
        # The first length is left out: its first call is the worker's start-up, and pass 2 drops it to stay paired.
        khz = tuple(median_or_none(config.batch * n / 1000 / s for n, s in zip(config.lengths[1:], p[1:]))
                    for p in times)
        return cls.from_dict({**doc, "mode": mode, "times_s": times, "khz": khz})

    def to_dict(self):
        d = asdict(self)
        return {**d, "times_s": [list(p) for p in self.times_s], "khz": list(self.khz)}

    @classmethod
    def from_dict(cls, d):
        """Build from a worker's or a file's dict, ignoring keys this version does not know."""
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        d["times_s"] = tuple(tuple(p) for p in d.get("times_s") or ())
        d["khz"] = tuple(d.get("khz") or ())
        return cls(**d)


def worker_argv(config, mode):
    """The worker's whole job as flags."""
    argv = ["-m", "tfgraphs.shapes_worker", "--mode", mode]
    for name in ("start", "count", "batch", "channels", "filters", "kernel", "block", "passes", "seed"):
        argv += [f"--{name}", str(getattr(config, name))]
    return argv


def switch_for(devices):
    """The per-shape switch of the device the convolution will run on: cuDNN autotuning if a GPU is visible."""
    # The GPU branch is untested: no machine with a GPU has run it.
    return AUTOTUNE if any("GPU" in d for d in devices) else ONEDNN


def run(config, progress, timeout=None):
    """Every mode with both switches on; then the switch modes with the device's switch off."""
    runs, docs = [], []

    def one(mode, env):
        label = mode + "".join(f" [{k}={v}]" for k, v in env.items() if v != SWITCHES_ON[k])
        doc = runner.run_worker(worker_argv(config, mode), label, progress, timeout, env=env)
        docs.append(doc)
        runs.append(ModeRun.from_worker(mode, {"env": env, **doc}, config))

    for mode in config.modes:
        one(mode, SWITCHES_ON)
    # The first worker that ran says which devices exist; the parent cannot ask TensorFlow itself.
    devices = next((d.get("devices", []) for d in docs if d.get("status") == "ok"), None)
    switch = None if devices is None else switch_for(devices)
    for mode in config.switch_modes if switch else ():
        one(mode, {**SWITCHES_ON, switch: "0"})
    tf_version, machine = envelope(docs)
    return Report("shapes", config.to_dict(), tuple(runs), tf_version=tf_version, machine=machine,
                  extra={"switch": switch})
