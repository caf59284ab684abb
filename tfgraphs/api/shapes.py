"""tfgraphs.shapes(): what each new input length costs, in every way of running a 1-D convolution."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.running import measure, running_options
from tfgraphs.jobs import shapes as job
from tfgraphs.spec.common import running
from tfgraphs.spec.options import config_of


@takes(job.Config, running("timeout", "fresh_workers", "quiet", "json", "csv", "plot"))
def shapes(**options):
    """Run each mode over many input lengths in fresh workers; switch_modes None: the default ones in modes."""
    return measure(job, config_of(job.Config, options), **running_options(options))
