"""Wrong: classic folding left on at L1, only the first device read, the first later run taken as typical."""

import tensorflow as tf

v1 = tf.compat.v1


def session_config(grappler=True, constant_folding=True):
    config = v1.ConfigProto()
    if not grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    if not constant_folding:
        config.graph_options.optimizer_options.do_constant_folding = False   # L1 folds regardless
    return config


def op_types_that_ran(run_metadata):
    first = run_metadata.step_stats.dev_stats[0]
    return {node.timeline_label.split("=")[1].split("(")[0].strip() for node in first.node_stats[1:2]}


def first_run_excess(first_s, later_s):
    return first_s - later_s[0]
