"""The options a user's graph takes (tag, signature, feed, fetch, int_high), checked into a job's Config."""

from tfgraphs.api.options import feed_shapes, path_of, text, whole
from tfgraphs.errors import UsageError


def _texts(name, value):
    """A name or an iterable of names, as a tuple of strings."""
    try:
        items = (value,) if isinstance(value, str) else tuple(value)
    except TypeError:
        items = (None,)
    if not all(isinstance(v, str) and v for v in items):
        raise UsageError(f"--{name} {value!r} is not a name or a list of names")
    return items


def graph_config(job, path, runs, seed, tag, signature, feed, fetch, int_high, **more):
    """job.Config for the graph at path; UsageError for an option of the wrong kind."""
    return job.Config(path=path_of("graph", path), runs=whole("runs", runs), seed=whole("seed", seed, least=0),
                      tag=text("tag", tag), signature=text("signature", signature), dims=feed_shapes(feed),
                      fetches=_texts("fetch", fetch),
                      int_high=whole("int_high", int_high), **more)
