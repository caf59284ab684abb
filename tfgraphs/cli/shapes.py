"""`tfgraphs shapes`: what each new input length costs, in every way of running a 1-D convolution."""

from tfgraphs.api.shapes import shapes
from tfgraphs.cli.common import add_output_flags, add_plot_flag, option, run_api
from tfgraphs.jobs.shapes import Config
from tfgraphs.spec.shapes import MODES

DESCRIPTION = (
    "Run Conv1D(filters, kernel) on (batch, L, channels) float32 for L = start ... start+count-1, in passes over "
    "every length, each mode in a fresh worker, and measure what a length seen for the first time costs each mode, "
    "counting tf.function traces and graphs built, with a fixed-block mode for comparison. With no GPU, cuDNN "
    "autotuning does not apply; oneDNN's part in the cost is measured instead by also running --switch-modes with "
    "TF_ENABLE_ONEDNN_OPTS=0. With a GPU they run with TF_CUDNN_USE_AUTOTUNE=0 instead (that path is untested). "
    "Every mode runs in its own worker, one after another; progress lines on stderr name each one.")
SIZES = (("start", "shortest input length"), ("count", "how many lengths: start, start+1, ..."),
         ("batch", "signals per call"), ("channels", "input channels"), ("filters", "output channels"),
         ("kernel", "kernel length, at most --start"),
         ("block", "blocked mode's output block length; every inner convolution then sees one fixed shape"),
         ("passes", "passes over every length; pass 1 meets each length for the first time"))


def add_parser(sub, command):
    """Add `shapes` to the subcommands."""
    s = sub.add_parser("shapes", help=command.summary,
                       description=DESCRIPTION)
    for name, what in SIZES:
        option(s, shapes, name, what)
    option(s, shapes, "modes", f"comma-separated, from {', '.join(MODES)}", shown="all")
    option(s, shapes, "switch_modes", "modes of --modes also run with the device's per-shape switch off, "
                                      "TF_ENABLE_ONEDNN_OPTS=0 on CPU or TF_CUDNN_USE_AUTOTUNE=0 on a GPU; 'none' "
                                      "for none", shown=f"{','.join(Config.switch_modes)}, those of them in --modes")
    option(s, shapes, "seed", "seed of the data generator, 0 or more")
    add_output_flags(s)
    add_plot_flag(s, command)
    s.set_defaults(func=lambda args: run_api(shapes, args))
