"""tfgraphs.sweep(): graph size, time and memory against batch, fitted up to the 2 GiB GraphDef limit."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.running import measure, running_options
from tfgraphs.jobs import sweep as job
from tfgraphs.spec.common import RUNNING
from tfgraphs.spec.options import config_of


@takes(job.Config, RUNNING)
def sweep(**options):
    """Measure each variant at each batch, fit graph bytes against batch and put the predicted limit to TensorFlow."""
    return measure(job, config_of(job.Config, options), **running_options(options))
