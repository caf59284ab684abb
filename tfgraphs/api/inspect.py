"""tfgraphs.inspect(): what a GraphDef or SavedModel holds, read without running it."""

from tfgraphs.api.options import path_of, whole, writable
from tfgraphs.api.report import Report
from tfgraphs.jobs import inspect as job


def inspect(path, top=10, strip_constants=None, json=None):
    """Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path; nothing is run."""
    writable((path,), json=json, strip_constants=strip_constants)
    config = job.Config(path_of("path", path), top=whole("top", top), json=json and path_of("json", json),
                        strip_constants=strip_constants and path_of("strip_constants", strip_constants))
    job.plan(config)
    found = Report(job.run(config))
    if json:
        found.to_json(json)
    return found
