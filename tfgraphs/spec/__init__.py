"""What is measured and how it is asked for: the options, the seed network and its variants, a user's graph, the
pitfalls lessons, the shape modes and TensorFlow's own log (no TensorFlow)."""
