"""A Session that records what each run fetched and fed, and a context in which every new Session is one."""

from contextlib import contextmanager

import tensorflow as tf

v1 = tf.compat.v1


def signature(graph, fetches, feed_dict=None):
    """(fetched names, fed names) of one run: what TensorFlow keys its executors by, order left out."""
    fetched = frozenset(graph.as_graph_element(f).name for f in tf.nest.flatten(fetches))
    fed = frozenset(graph.as_graph_element(k).name for k in (feed_dict or {}))
    return fetched, fed


class RecordingSession(v1.Session):
    """A Session that keeps, for each run, its signature and whether its graph was finalized then."""

    created = []   # every RecordingSession made while recording(), in order

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.runs = []
        RecordingSession.created.append(self)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        self.runs.append((signature(self.graph, fetches, feed_dict), self.graph.finalized))
        return super().run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    @property
    def signatures(self):
        return [s for s, _ in self.runs]


class TracingSession(v1.Session):
    """A Session whose every run asks TensorFlow for the partition graphs of the executor it ran, and keeps the
    RunMetadata's bytes, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.metadata = []

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        asked = v1.RunOptions()
        if options is not None:
            asked.CopyFrom(options)
        asked.output_partition_graphs = True
        meta = run_metadata if run_metadata is not None else v1.RunMetadata()
        try:
            return super().run(fetches, feed_dict=feed_dict, options=asked, run_metadata=meta)
        finally:
            self.metadata.append(meta.SerializeToString())


@contextmanager
def recording():
    """Within it, tf.compat.v1.Session makes RecordingSessions; yields the list of those created."""
    original, created = v1.Session, []
    RecordingSession.created = created
    v1.Session = RecordingSession
    try:
        yield created
    finally:
        v1.Session = original

