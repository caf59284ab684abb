"""Running a measuring job from Python: plan it, refuse or check what the plan says, run it, write its outputs."""

import sys

from tfgraphs import children
from tfgraphs.api.notebook import progress
from tfgraphs.api.report import Report
from tfgraphs.errors import UsageError
from tfgraphs.jobs.plan import check_memory
from tfgraphs.spec.common import REMOTE_TIMEOUT_S, RUNNING
from tfgraphs.spec.limits import TF_BASELINE_BYTES
from tfgraphs.spec.options import config_of


def running_options(options):
    """The options of spec.common.RUNNING among a command's checked options: how measure() runs and writes."""
    return {name: value for name, value in options.items() if name in RUNNING}


def measured(command, **options):
    """What a measuring command's API function does: its Config from the checked options, run as measure() runs it."""
    return measure(command, command.job, config_of(command.config, options), **running_options(options))


def measure(command, job, config, *, quiet=False, timeout=None, force=False, fresh_workers=False, json=None, csv=None,
            plot=None, **options):
    """Run the plan of command's job with progress; the Report, with its JSON, CSV and plot written where asked.

    The caller (an API function made by takes()) has checked every option and output before building config.
    """
    if timeout is None and getattr(config, "target", ""):
        # A server that accepts the connection and never answers would hang a remote run: it gets a deadline.
        timeout = REMOTE_TIMEOUT_S
    plan = job.plan(config)
    said = plan.notices if plan.runnable else plan.notices[:-1]
    for notice in said:
        print(f"tfgraphs: refusing {notice}", file=sys.stderr)
    if not plan.runnable:
        # Every row was refused: the last refusal is the error, so each one is still one line.
        raise UsageError(f"refusing {plan.notices[-1]}" if plan.notices else "nothing to run")
    # A server that imported TensorFlow stays beside the workers it forks.
    check_memory(plan, force, beside=0 if fresh_workers else TF_BASELINE_BYTES)
    with children.workers(fork=not fresh_workers):
        found = Report(job.run(config, plan, progress(plan.workers, quiet), timeout=timeout, **options),
                       command, refused=plan.notices)
    found.write(json=json, csv=csv, plot=plot)
    return found
