"""tfgraphs.inspect(): what a GraphDef or SavedModel holds, read without running it."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.outputs import Output
from tfgraphs.api.report import Report
from tfgraphs.jobs import inspect as job
from tfgraphs.spec.options import config_of, flag


def _writes(options):
    """The stripped copy, when asked: an Output beside --json."""
    return [Output(flag("strip_constants"), options["strip_constants"])] if options["strip_constants"] else []


@takes(job.Config, writes=_writes)
def inspect(**options):
    """Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path; nothing is run."""
    config = config_of(job.Config, options)
    job.plan(config)
    found = Report(job.run(config))
    if config.json:
        found.to_json(config.json)
    return found
