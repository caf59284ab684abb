"""What is measured: the seed network, its variants, session presets, shape modes and size limits (no TensorFlow)."""
