"""tfgraphs.compare(): the seed network fed several ways, each phase measured in a fresh worker."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.running import measure, running_options
from tfgraphs.jobs import compare as job
from tfgraphs.spec.common import RUNNING
from tfgraphs.spec.options import config_of


@takes(job.Config, RUNNING)
def compare(**options):
    """Build the seed network from the same data in each variant and measure every phase in a fresh worker."""
    return measure(job, config_of(job.Config, options), **running_options(options))
