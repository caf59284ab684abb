"""What tfgraphs.inspect() does: read the graph at path, run nothing, and write the stripped copy asked for."""

from tfgraphs.api.outputs import Output
from tfgraphs.api.report import Report
from tfgraphs.jobs import inspect as job
from tfgraphs.spec.options import config_of, flag


def writes(options):
    """The stripped copy, when asked: an Output beside --json."""
    return [Output(flag("strip_constants"), options["strip_constants"])] if options["strip_constants"] else []


def inspected(command, **options):
    """Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path."""
    config = config_of(job.Config, options)
    job.plan(config)
    found = Report(job.run(config), command)
    if config.json:
        found.to_json(config.json)
    return found
