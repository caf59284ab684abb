"""Lab 2 reference solution."""

import re
import statistics

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2


def session_config(grappler=True, constant_folding=True):
    config = tf.compat.v1.ConfigProto()
    if not grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    if not constant_folding:
        config.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
        config.graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
        config.graph_options.optimizer_options.do_constant_folding = False
    return config


def op_types_that_ran(run_metadata):
    types = set()
    for dev in run_metadata.step_stats.dev_stats:
        for node in dev.node_stats:
            match = re.match(r"\s*[^=]+?\s*=\s*(\w+)", node.timeline_label)
            if match:
                types.add(match.group(1))
    return types


def first_run_excess(first_s, later_s):
    return first_s - statistics.median(later_s)
