"""Wrong: Grappler's folding switch used for "Grappler off", node names for op types, the mean of later runs."""

import statistics

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

v1 = tf.compat.v1


def session_config(grappler=True, constant_folding=True):
    config = v1.ConfigProto()
    if not grappler or not constant_folding:
        config.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
    if not constant_folding:
        config.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
    return config


def op_types_that_ran(run_metadata):
    return {node.node_name for dev in run_metadata.step_stats.dev_stats for node in dev.node_stats}


def first_run_excess(first_s, later_s):
    return first_s - statistics.mean(later_s)
