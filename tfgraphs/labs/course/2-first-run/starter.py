"""Lab 2 starter: switch optimizers off, read a trace, measure the first run's excess.

Check with: tfgraphs lab check 2 lab2/starter.py
"""

import statistics

import tensorflow as tf


def session_config(grappler=True, constant_folding=True):
    """A tf.compat.v1.ConfigProto: grappler=False turns Grappler off; constant_folding=False turns off both
    Grappler's constant folding and the classic optimizer's (opt_level L0, do_constant_folding False)."""
    config = tf.compat.v1.ConfigProto()
    # TODO: set the fields for each flag. Both True must leave the default config untouched.
    return config


def op_types_that_ran(run_metadata):
    """The set of op types (e.g. {'Conv2D', 'AvgPool', ...}) in a FULL_TRACE run's step stats."""
    # TODO: walk run_metadata.step_stats.
    raise NotImplementedError


def first_run_excess(first_s, later_s):
    """What only the first run pays: the first run's time minus the typical later run."""
    # TODO: is the mean the right summary of the later runs?
    return first_s - statistics.mean(later_s)
