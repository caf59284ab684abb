"""What a run produced: immutable rows, the report and its JSON schema, and the statistics (no TensorFlow)."""
