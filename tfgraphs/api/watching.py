"""tfgraphs.watching(): watch the TensorFlow graph-mode calls a notebook's cells make, in this process."""

import contextlib

from tfgraphs.api.commands import COMMANDS
from tfgraphs.api.report import Report
from tfgraphs.records.watch import Watching
from tfgraphs.spec.options import byte_size
from tfgraphs.spec.watch import WATCHED_BYTES


class Watched:
    """What watching() saw in this process so far: report() renders it like every command's Report."""

    def __init__(self, hooks, min_bytes):
        self.hooks, self.min_bytes = hooks, min_bytes

    def report(self):
        """The Report of what was seen until now."""
        doc = self.hooks.document()
        return Report(Watching.from_dict({**doc, "script": None, "min_bytes": self.min_bytes}), COMMANDS["watch"])


@contextlib.contextmanager
def watching(min_bytes=WATCHED_BYTES):
    """Watch the TensorFlow graph-mode calls made in this process (a notebook's cells) inside the with block."""
    from tfgraphs.worker.watching import Watch   # the hooks run here: the cells are in this process

    min_bytes = byte_size("min_bytes", min_bytes)
    hooks = Watch(min_bytes)
    hooks.start()
    try:
        yield Watched(hooks, min_bytes)
    finally:
        hooks.stop()
