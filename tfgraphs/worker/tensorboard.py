"""A graph written as a TensorBoard event file (needs no tensorboard package)."""

from tfgraphs.tfimport import import_tensorflow


def write_graph(graph, directory):
    """Write `graph` as a TensorBoard event file in `directory`; return the directory."""
    tf = import_tensorflow()
    # FileWriter refuses to work while eager execution is the default, so enter the graph first.
    with graph.as_default():
        writer = tf.compat.v1.summary.FileWriter(directory, graph=graph)
        writer.flush()
        writer.close()
    return directory
