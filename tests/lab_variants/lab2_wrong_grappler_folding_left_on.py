"""Wrong: constant_folding=False sets only the classic optimizer's L0, as if Grappler's folder were not there; a
summary that is any single run (the last); op types read from every node's name."""

import tensorflow as tf

v1 = tf.compat.v1


def session_config(grappler=True, constant_folding=True):
    config = v1.ConfigProto()
    if not grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    if not constant_folding:
        config.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
    return config


def op_types_that_ran(run_metadata):
    return {node.timeline_label.split(" = ")[-1].split("(")[0] for dev in run_metadata.step_stats.dev_stats
            for node in dev.node_stats}


def first_run_excess(first_s, later_s):
    return first_s - later_s[-1]
