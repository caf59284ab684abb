"""tfgraphs.unembed(): move a graph's large Consts into variables restored from a checkpoint."""

from tfgraphs.api.options import byte_size, path_of, switch, writable
from tfgraphs.api.owngraph import graph_config
from tfgraphs.api.running import measure
from tfgraphs.errors import UsageError
from tfgraphs.jobs import unembed as job

def unembed(path, out, min_bytes=1048576, check=False, replace=False, runs=10, seed=0, tag="serve",
            signature="serving_default", feed=(), fetch=(), int_high=2, timeout=None, quiet=False, json=None):
    """Write the graph at path as a TF1 SavedModel in out, its Consts of min_bytes or more moved into variables."""
    writable((path,), json=json)
    if not out:
        raise UsageError("-o OUT is needed: the SavedModel folder to write")
    config = graph_config(job, path, runs, seed, tag, signature, feed, fetch, int_high, out=path_of("out", out),
                          min_bytes=byte_size("min_bytes", min_bytes), replace=switch("replace", replace),
                          check=switch("check", check))
    return measure(job, config, timeout=timeout, quiet=quiet, json=json)
