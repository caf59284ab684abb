"""A tf.compat.v1.ConfigProto for each session preset, setting only the fields the preset switches off."""

from tfgraphs.spec.presets import PRESETS
from tfgraphs.tfimport import import_tensorflow


def session_config(preset):
    """A tf.compat.v1.ConfigProto for the preset named `preset`."""
    tf = import_tensorflow()
    from tensorflow.core.protobuf import rewriter_config_pb2

    assert preset in PRESETS, f"unknown preset {preset!r}"
    p = PRESETS[preset]
    config = tf.compat.v1.ConfigProto()
    graph_options = config.graph_options
    if not p.grappler:
        graph_options.rewrite_options.disable_meta_optimizer = True
    if not p.folding:
        graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
        graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
        # False is already proto3's default; L1 folds regardless of it, L0 folds only when it is True.
        graph_options.optimizer_options.do_constant_folding = False
    return config
