"""The toy command's worker: `python -m toy_command.worker --size N` builds tf.constant(arange(N) as float32) in a
TF1 graph, and prints its GraphDef's bytes, its tensor's bytes and one sess.run as one JSON document."""

import time

import numpy as np

from tfgraphs import processes
from tfgraphs.tfimport import import_tensorflow
from toy_command.job import ToyTask


def measure(task):
    """The numbers of one constant of task.size float32 values."""
    tf = import_tensorflow()
    processes.phase("build")
    graph = tf.Graph()
    with graph.as_default():
        constant = tf.constant(np.arange(task.size, dtype=np.float32))
    graph_def = graph.as_graph_def()
    processes.phase("run")
    with tf.compat.v1.Session(graph=graph) as sess:
        t0 = time.perf_counter()
        fetched = sess.run(constant)
        run_s = time.perf_counter() - t0
    stored = constant.op.get_attr("value").tensor_content
    return {"graph_bytes": graph_def.ByteSize(), "tensor_content_bytes": len(stored),
            "fetched_sum": float(fetched.sum(dtype=np.float64)), "run_s": run_s, "tf_version": tf.__version__}


if __name__ == "__main__":
    processes.main(ToyTask, measure)
