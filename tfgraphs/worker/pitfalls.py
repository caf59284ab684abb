"""One pitfalls lesson on one variant in a fresh process: `python -m tfgraphs.worker.pitfalls --lesson L ...`.

Prints one JSON document: the lesson's cases, named as in spec.pitfalls, in the order they ran. Progress goes to
stderr as `@phase NAME` lines.
"""

import sys

from tfgraphs.spec import network
from tfgraphs.spec.pitfalls import DTYPE, PitfallsTask
from tfgraphs.tfimport import import_tensorflow
from tfgraphs.spec import protocol


def measure(task):
    """Run the task's lesson on its variant."""
    protocol.phase("import tensorflow")
    tf = import_tensorflow()

    protocol.phase("data")
    x, w = network.make_data(task.batch, DTYPE, task.seed)
    result = runs_of_lessons()[task.lesson](tf, task, x, w)
    return {"tf_version": tf.__version__, "devices": [d.name for d in tf.config.list_physical_devices()], **result}


def runs_of_lessons():
    """Each lesson's run, by its name in spec.pitfalls (imported after TensorFlow)."""
    from tfgraphs.worker import alignment, folding, leak, pruning, runs, saved

    return {"executor-cache": runs.executor_cache, "graph-growth": runs.graph_growth,
            "saved-copies": saved.saved_copies, "placeholder-default": saved.placeholder_default,
            "folding": folding.folding, "pruning": pruning.pruning, "feed-alignment": alignment.feed_alignment,
            "executor-leak": leak.executor_leak}


if __name__ == "__main__":
    sys.exit(protocol.main(PitfallsTask, measure))
