"""What a session on a grpc:// target adds to a seed measurement: where X lived, and the bytes that crossed."""

import time

from tfgraphs.spec.remote import task_of
from tfgraphs.spec import protocol


def data_device(built, network_device):
    """The device the graph's X node asked for, else the network's (None when TensorFlow chose)."""
    ops = {op.name: op for op in built.graph.get_operations()}
    asked = ops["X"].device if "X" in ops else ""
    return asked or network_device


def between_tasks(tf, sess, built):
    """One traced run after the timed ones: bytes TensorFlow reports received from another task, and its wall time."""
    protocol.phase("traced run")
    options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    meta = tf.compat.v1.RunMetadata()
    t0 = time.perf_counter()
    sess.run(built.output, feed_dict=built.feed, options=options, run_metadata=meta)
    wall = time.perf_counter() - t0
    return received_bytes(meta.step_stats), wall


def received_bytes(step_stats):
    """Bytes of every RecvTensor in the step stats whose sender is another task (its label says "from ... to")."""
    total = 0
    for dev in step_stats.dev_stats:
        for node in dev.node_stats:
            if node.node_name != "RecvTensor" or " from " not in node.timeline_label:
                continue
            sender = node.timeline_label.split(" from ", 1)[1].split(" to ", 1)[0]
            if task_of(sender) != task_of(dev.device):
                total += sum(o.tensor_description.allocation_description.requested_bytes for o in node.output)
    return total

