"""The shapes job: each mode over many input lengths, twice, in a fresh worker, plus the backend switch turned off."""

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.results import ShapesResults
from tfgraphs.records.rows import ModeRun
from tfgraphs.records.schema import read_worker
from tfgraphs.spec.shapes import DTYPE, SWITCHES_ON, switch_for


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
    held = ((f"X [{config.batch}, {longest:,}, {config.channels:,}], W and the output ({DTYPE})", data,
              "a smaller --start, --count, --batch, --channels or --filters"),)
    return Plan({}, (), workers=len(config.modes) + len(config.switch_modes), data_held=held)


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
    return ShapesResults(config, tuple(runs), tf_version=tf_version, machine=machine, switch=switch,
                         order="interleaved")
