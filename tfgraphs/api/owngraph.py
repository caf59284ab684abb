"""The options a user's graph takes (tag, signature, feed, fetch, int_high), checked into a job's Config."""

from tfgraphs.api.options import feed_shapes, whole
from tfgraphs.errors import UsageError
from tfgraphs.spec.owngraph import INT_HIGH

GRAPH_DEFAULTS = {"tag": "serve", "signature": "serving_default", "feed": (), "fetch": (), "int_high": INT_HIGH}


def _texts(name, value):
    """A name or an iterable of names, as a tuple of strings."""
    items = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(v, str) and v for v in items):
        raise UsageError(f"--{name} {value!r} is not a name or a list of names")
    return items


def graph_config(job, path, runs, seed, tag, signature, feed, fetch, int_high, **more):
    """job.Config for the graph at path; UsageError for an option of the wrong kind."""
    if not isinstance(path, str) or not path:
        raise UsageError(f"{path!r} is not a path to a GraphDef or SavedModel")
    return job.Config(path=path, runs=whole("runs", runs), seed=whole("seed", seed, least=0), tag=str(tag),
                      signature=str(signature), dims=feed_shapes(feed), fetches=_texts("fetch", fetch),
                      int_high=whole("int_high", int_high), **more)
