"""`tfgraphs shapes`: what each new input length costs, in every way of running a 1-D convolution."""

from tfgraphs.cli.common import add_output_flags, check_outputs, choose, positive_int, run_job, seed
from tfgraphs.jobs import shapes
from tfgraphs.spec.shapes import MODES

DESCRIPTION = (
    "Run Conv1D(filters, kernel) on (batch, L, channels) float32 for L = start ... start+count-1, in passes over "
    "every length, each mode in a fresh worker, and measure what a length seen for the first time costs each mode, "
    "counting tf.function traces and graphs built, with a fixed-block mode for comparison. With no GPU, cuDNN "
    "autotuning does not apply; oneDNN's part in the cost is measured instead by also running --switch-modes with "
    "TF_ENABLE_ONEDNN_OPTS=0. With a GPU they run with TF_CUDNN_USE_AUTOTUNE=0 instead (that path is untested). "
    "Every mode runs in its own worker, one after another; progress lines on stderr name each one.")


def add_parser(sub):
    """Add `shapes` to the subcommands."""
    s = sub.add_parser("shapes", help="the cost of each new input length: retracing, kernel selection, fixed blocks",
                       description=DESCRIPTION)
    d = shapes.Config()
    for name, what in (("start", "shortest input length"), ("count", "how many lengths: start, start+1, ..."),
                       ("batch", "signals per call"), ("channels", "input channels"),
                       ("filters", "output channels"), ("kernel", "kernel length, at most --start")):
        s.add_argument(f"--{name}", type=positive_int, default=getattr(d, name),
                       help=f"{what} (default {getattr(d, name)})")
    s.add_argument("--block", type=positive_int, default=d.block,
                   help=f"blocked mode's output block length; every inner convolution then sees one fixed shape "
                        f"(default {d.block})")
    s.add_argument("--passes", type=positive_int, default=d.passes,
                   help=f"passes over every length; pass 1 meets each length for the first time (default {d.passes})")
    s.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, from {', '.join(MODES)} (default all)")
    s.add_argument("--switch-modes",
                   help=f"modes of --modes also run with the device's per-shape switch off, TF_ENABLE_ONEDNN_OPTS=0 "
                        f"on CPU or TF_CUDNN_USE_AUTOTUNE=0 on a GPU; 'none' for none (default "
                        f"{','.join(d.switch_modes)}, those of them in --modes)")
    s.add_argument("--seed", type=seed, default=d.seed,
                   help=f"seed of the data generator, 0 or more (default {d.seed})")
    add_output_flags(s)
    s.set_defaults(func=run)


def run(args):
    check_outputs(args)
    modes = choose(args.modes, MODES, "mode")
    if args.switch_modes is None:
        # The default only names modes that ran; a switch mode the user names must be in --modes (Config.check).
        switch_modes = tuple(m for m in shapes.Config.switch_modes if m in modes)
    elif args.switch_modes.strip() == "none":
        switch_modes = ()
    else:
        switch_modes = choose(args.switch_modes, MODES, "mode")
    config = shapes.Config(start=args.start, count=args.count, batch=args.batch, channels=args.channels,
                           filters=args.filters, kernel=args.kernel, block=args.block, passes=args.passes,
                           seed=args.seed, modes=modes, switch_modes=switch_modes)
    return run_job(args, shapes, config)
