"""Right, written differently: constructor keywords, a redundant folding switch, another parser, the minimum."""

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

v1 = tf.compat.v1


def session_config(grappler=True, constant_folding=True):
    rewrite = rewriter_config_pb2.RewriterConfig(
        disable_meta_optimizer=not grappler,
        # Redundant when Grappler is off, harmless: it switches nothing more.
        constant_folding=rewriter_config_pb2.RewriterConfig.OFF if not (grappler and constant_folding) else 0)
    classic = v1.OptimizerOptions(opt_level=v1.OptimizerOptions.L0 if not constant_folding else
                                  v1.OptimizerOptions.L1)
    return v1.ConfigProto(graph_options=v1.GraphOptions(rewrite_options=rewrite, optimizer_options=classic))


def op_types_that_ran(run_metadata):
    types = set()
    for dev in run_metadata.step_stats.dev_stats:
        for node in dev.node_stats:
            label = node.timeline_label
            if "=" in label and not node.node_name.startswith("_"):
                types.add(label.split("=", 1)[1].strip().split("(")[0])
    return types


def first_run_excess(first_s, later_s):
    return first_s - min(later_s)
