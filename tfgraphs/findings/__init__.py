"""Findings: the sentences each command says about its results, computed from their numbers (no TensorFlow)."""
