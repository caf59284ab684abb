"""tfgraphs: measure how TensorFlow 1.x graph mode spends its time and memory."""

__version__ = "0.1.0"
