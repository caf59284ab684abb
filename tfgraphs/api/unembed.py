"""tfgraphs.unembed(): move a graph's large Consts into variables restored from a checkpoint."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.outputs import Output
from tfgraphs.api.running import measure, running_options
from tfgraphs.jobs import unembed as job
from tfgraphs.spec.common import running
from tfgraphs.spec.options import config_of


def _writes(options):
    """OUT, a folder written whole: the new SavedModel replaces it."""
    return [Output("-o", options["out"], "whole")]


@takes(job.Config, running("timeout", "fresh_workers", "quiet", "json"), without=("trials", "presets"),
       writes=_writes)
def unembed(**options):
    """Write the graph at path as a TF1 SavedModel in out, its Consts of min_bytes or more moved into variables."""
    return measure(job, config_of(job.Config, options), **running_options(options))
