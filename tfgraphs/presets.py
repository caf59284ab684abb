"""Session-config presets that switch graph optimizers off, to see what the first run pays for."""

PRESETS = {
    "default": "TensorFlow's default session config",
    "no-grappler": "Grappler off (rewrite_options.disable_meta_optimizer)",
    "no-folding": "Grappler constant folding off and classic optimizer at L0 without constant folding",
    "bare": "both: Grappler off and classic constant folding off",
}


def session_config(preset):
    """A tf.compat.v1.ConfigProto for `preset`, setting only the fields the preset names."""
    import tensorflow as tf
    from tensorflow.core.protobuf import rewriter_config_pb2

    assert preset in PRESETS, f"unknown preset {preset!r}"
    config = tf.compat.v1.ConfigProto()
    graph_options = config.graph_options
    if preset in ("no-grappler", "bare"):
        graph_options.rewrite_options.disable_meta_optimizer = True
    if preset in ("no-folding", "bare"):
        graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
        graph_options.optimizer_options.opt_level = tf.compat.v1.OptimizerOptions.L0
        # False is already proto3's default; L1 folds regardless of it, L0 folds only when it is True.
        graph_options.optimizer_options.do_constant_folding = False
    return config
