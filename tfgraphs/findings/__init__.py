"""Sentences computed from a report's numbers, one module per command (no TensorFlow)."""
