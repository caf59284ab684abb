"""tfgraphs: measure how TensorFlow 1.x graph mode spends its time and memory."""

from tfgraphs.errors import UsageError

__version__ = "0.2.0"
__all__ = ["UsageError", "blocked_conv1d", "__version__"]


def __getattr__(name):
    """tfgraphs.blocked_conv1d, imported on first use so that importing tfgraphs never imports TensorFlow."""
    if name == "blocked_conv1d":
        from tfgraphs.worker.blocked import blocked_conv1d
        return blocked_conv1d
    raise AttributeError(f"module 'tfgraphs' has no attribute {name!r}")
