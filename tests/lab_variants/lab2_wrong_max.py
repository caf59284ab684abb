"""Wrong: an extra session field set, and the slowest later run taken as typical."""

import tensorflow as tf

v1 = tf.compat.v1


def session_config(grappler=True, constant_folding=True):
    config = v1.ConfigProto(intra_op_parallelism_threads=1)
    if not grappler:
        config.graph_options.rewrite_options.disable_meta_optimizer = True
    if not constant_folding:
        config.graph_options.optimizer_options.opt_level = v1.OptimizerOptions.L0
    return config


def op_types_that_ran(run_metadata):
    raise NotImplementedError


def first_run_excess(first_s, later_s):
    return first_s - max(later_s)
