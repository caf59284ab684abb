"""The shapes job: each mode over many input lengths, in passes, in a fresh worker, plus the backend switch turned
off; with --trials K, K workers a mode and a switch mode, in rotating order."""

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.results import ShapesResults
from tfgraphs.records.results import ModeRun
from tfgraphs.records.schema import read_worker
from tfgraphs.spec.shapes import DTYPE, SWITCHES_ON, switch_for


def plan(config):
    """Refuse settings that depend on each other; one worker per mode, and one per switch mode, each trial."""
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
    return Plan({}, (), workers=(len(config.modes) + len(config.switch_modes)) * config.trials, data_held=held)


def run(config, plan, progress, timeout=None):
    """Every mode with both switches on and the switch modes with the device's switch off, each trial in turn, in
    rotated order, so no mode always meets the machine first or last."""
    runs, docs = [], []
    tasks = [(mode, False) for mode in config.modes] + [(mode, True) for mode in config.switch_modes]
    trials = config.trials
    for trial in range(1, trials + 1):
        for mode, off in runner.rotated(tasks, trial - 1):
            switch = device_switch(docs)
            name = mode + (f" trial {trial}/{trials}" if trials > 1 else "")
            if off and not switch:
                progress.skip(f"{mode} [switch off]", "no worker reported its devices")
                continue
            env = {**SWITCHES_ON, switch: "0"} if off else SWITCHES_ON
            label = name + "".join(f" [{k}={v}]" for k, v in env.items() if v != SWITCHES_ON[k])
            doc = runner.run_worker(config.task(mode), label, progress, timeout, env=env)
            docs.append(doc)
            kept = {"env": env, **read_worker(ModeRun, doc), "trial": trial if trials > 1 else None}
            runs.append(ModeRun.from_worker(mode, kept, config.batch, config.lengths))
    tf_version, machine = runner.envelope(docs)
    # "order" tells a reader of the document that the passes ran interleaved (older documents ran them pass by pass).
    return ShapesResults(config, tuple(runs), tf_version=tf_version, machine=machine, switch=device_switch(docs),
                         order="interleaved")


def device_switch(docs):
    """The per-shape switch of the devices the first ok worker reported (the parent cannot ask TensorFlow itself);
    None before any did."""
    devices = next((d.get("devices", []) for d in docs if d.get("status") == "ok"), None)
    return None if devices is None else switch_for(devices)
