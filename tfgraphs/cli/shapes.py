"""`tfgraphs shapes`: what each new input length costs, in every way of running a 1-D convolution."""

from tfgraphs.api.shapes import shapes
from tfgraphs.cli.common import add_options, run_api

DESCRIPTION = (
    "Run Conv1D(filters, kernel) on (batch, L, channels) float32 for L = start ... start+count-1, in passes over "
    "every length, each mode in a fresh worker, and measure what a length seen for the first time costs each mode, "
    "counting tf.function traces and graphs built, with a fixed-block mode for comparison. With no GPU, cuDNN "
    "autotuning does not apply; oneDNN's part in the cost is measured instead by also running --switch-modes with "
    "TF_ENABLE_ONEDNN_OPTS=0. With a GPU they run with TF_CUDNN_USE_AUTOTUNE=0 instead (that path is untested). "
    "Every mode runs in its own worker, one after another; progress lines on stderr name each one.")


def add_parser(sub, command):
    """Add `shapes` to the subcommands."""
    s = sub.add_parser("shapes", help=command.summary, description=DESCRIPTION)
    add_options(s, shapes, command)
    s.set_defaults(func=lambda args: run_api(shapes, args))
