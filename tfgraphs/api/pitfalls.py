"""tfgraphs.pitfalls(): the TF1 pitfalls a course needs next, each measured in a fresh worker."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.running import measure, running_options
from tfgraphs.jobs import pitfalls as job
from tfgraphs.spec.common import RUNNING
from tfgraphs.spec.options import config_of


@takes(job.Config, RUNNING)
def pitfalls(**options):
    """Measure each lesson on each of its variants, every one in a fresh worker."""
    return measure(job, config_of(job.Config, options), **running_options(options))
