"""One pitfalls lesson on one variant in a fresh process: `python -m tfgraphs.worker.pitfalls --lesson L ...`.

Prints one JSON document: the lesson's cases, named as in spec.pitfalls, in the order they ran. Progress goes to
stderr as `@phase NAME` lines.
"""

import sys

from tfgraphs.spec import network
from tfgraphs.spec.pitfalls import DTYPE
from tfgraphs.spec.tasks import PitfallsTask
from tfgraphs.tfimport import import_tensorflow
from tfgraphs.worker import protocol


def measure(task):
    """Run the task's lesson on its variant."""
    if task.lesson == "folding":
        from tfgraphs.worker import inside
        inside.ask_for_log()
    protocol.phase("import tensorflow")
    tf = import_tensorflow()
    from tfgraphs.worker import alignment, folding, leak, pruning, runs, saved

    protocol.phase("data")
    x, w = network.make_data(task.batch, DTYPE, task.seed)
    lessons = {"executor-cache": runs.executor_cache, "graph-growth": runs.graph_growth,
               "saved-copies": saved.saved_copies, "placeholder-default": saved.placeholder_default,
               "folding": folding.folding, "pruning": pruning.pruning, "executor-leak": leak.executor_leak,
               "feed-alignment": alignment.feed_alignment}
    result = lessons[task.lesson](tf, task, x, w)
    return {"tf_version": tf.__version__, "devices": [d.name for d in tf.config.list_physical_devices()], **result}


if __name__ == "__main__":
    sys.exit(protocol.main(PitfallsTask, measure))
