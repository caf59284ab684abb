"""What every command line shares: one-line usage errors, number types, flags, the plan, and finishing a report."""

import argparse
import os
import sys
import tempfile

from tfgraphs.errors import UsageError
from tfgraphs.fileio import write_doc
from tfgraphs.jobs.plan import check_memory
from tfgraphs.jobs.runner import Progress
from tfgraphs.render import render
from tfgraphs.render.csv import write_csv
from tfgraphs.render.page import output_width
from tfgraphs.spec import network
from tfgraphs.spec.variants import VARIANTS


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2, and --debug works anywhere."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # SUPPRESS: a subcommand's unset flag must not overwrite the one given before the subcommand.
        self.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                          help="show tracebacks of internal errors")

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _number(text, parse, what, ok, need):
    """Parse text with parse(); refuse it, in argparse's way, unless ok(value)."""
    try:
        value = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be {need}")
    return value


def positive_int(text):
    """argparse type: a whole number >= 1."""
    return _number(text, int, "a whole number", lambda v: v >= 1, "at least 1")


def seed(text):
    """argparse type: a whole number >= 0 (NumPy's generators take no negative seed)."""
    return _number(text, int, "a whole number", lambda v: v >= 0, "0 or more")


def positive_float(text):
    """argparse type: a number > 0 (NaN is refused too)."""
    return _number(text, float, "a number", lambda v: v > 0, "greater than 0")


def batch_list(text):
    """argparse type: comma-separated batches, each a whole number >= 1; sorted, repeats dropped."""
    batches = sorted({positive_int(t.strip()) for t in text.split(",") if t.strip()})
    if len(batches) < 2:
        raise argparse.ArgumentTypeError(f"{text!r} names fewer than two different batches, too few to fit a line")
    return tuple(batches)


def choose(text, known, what):
    """Parse a comma-separated list of names, each one of `known`, keeping order and dropping repeats."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError(f"no {what} given")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown {what} {', '.join(unknown)}; choose from {', '.join(known)}")
    return tuple(dict.fromkeys(names))


def add_variants_flag(p, default):
    p.add_argument("--variants", default=",".join(default),
                   help=f"comma-separated, from {', '.join(VARIANTS)} (default {','.join(default)})")


def add_plot_flag(p, what):
    p.add_argument("--plot", metavar="PATH.png",
                   help=f"also plot {what} to PATH.png (needs matplotlib: pip install -e '.[viz]')")


def add_measure_flags(p, runs=10, batch=True):
    """Flags of the commands that measure the seed network (sweep has --batches instead of --batch)."""
    if batch:
        p.add_argument("--batch", type=positive_int, default=6000,
                       help="examples in X [N,32,32,1] (default 6000, about 50 MB in float64; the seed used 60000, "
                            "where the constant variant needs about 8-9 GB of RAM)")
    p.add_argument("--dtype", default="float64", choices=network.DTYPES, help="data type of X and W (default float64)")
    p.add_argument("--runs", type=positive_int, default=runs, help=f"timed runs after the first (default {runs})")
    p.add_argument("--trials", type=positive_int, default=1,
                   help="fresh workers per variant, in rotating order; the report shows the median (default 1)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the data generator (default 0)")
    p.add_argument("--force", action="store_true", help="run even when the memory estimate exceeds what is available")
    add_output_flags(p)


def add_format_flags(p):
    """--format and --wide: how the text report is laid out."""
    p.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    p.add_argument("--wide", action="store_true",
                   help="one wide table per section and unfolded lines, for copying (default: fit 100 columns, or "
                        "the terminal's width)")


def text_width(args):
    """The width the report is fitted to: None with --wide."""
    return None if args.wide else output_width(sys.stdout)


def add_output_flags(p, measuring=True, csv=True):
    """--format, --wide and --json (every command that reports); --csv, --timeout and --quiet (those that measure)."""
    add_format_flags(p)
    p.add_argument("--json", metavar="PATH", help="also write every result to PATH as JSON (atomically)")
    if measuring and csv:
        p.add_argument("--csv", metavar="PATH", help="also write one flat row per variant x trial (or per call for "
                                                     "shapes) to PATH as CSV, times in s and sizes in bytes")
    if measuring:
        p.add_argument("--timeout", type=positive_float, metavar="S",
                       help="kill a worker after S seconds (it becomes a failed row)")
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def check_outputs(args, *paths):
    """Refuse a bad --format, a missing matplotlib or an unwritable output path before any work starts."""
    from tabulate import tabulate_formats

    if args.format not in tabulate_formats:
        raise UsageError(f"unknown table format {args.format!r}; choose from {', '.join(tabulate_formats)}")
    if getattr(args, "plot", None):
        from tfgraphs.render import plots
        plots.require()
    for path in (getattr(args, "json", None), getattr(args, "csv", None), getattr(args, "plot", None), *paths):
        if path:
            _check_writable(path)


def _check_writable(path):
    """A path can be written when it is not a directory and a file can be created in its nearest existing folder."""
    if os.path.isdir(path):
        raise UsageError(f"{path} is a directory; give a file name")
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):
        folder = os.path.dirname(folder)
    # Trying is the only sure test: permission bits do not bind root, and some file systems refuse anyway.
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {folder}: {exc.strerror}") from None


def check_output_dir(path):
    """Refuse an output folder that exists as something other than a folder."""
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"{path} exists and is not a folder")
    if path and not os.path.exists(path):
        _check_writable(os.path.join(path, "probe"))


def start(args, plan):
    """Say what the plan refuses and check its memory; the Progress to run it with, or None when nothing can run."""
    for notice in plan.notices:
        print(f"{args.prog}: refusing {notice}", file=sys.stderr)
    if not plan.runnable:
        return None
    check_memory(plan, getattr(args, "force", False))
    return Progress(total=plan.workers, quiet=args.quiet)


def run_job(args, job, config, **options):
    """Plan the job, refuse or check what the plan says, run it with progress, then finish its report."""
    plan = job.plan(config)
    progress = start(args, plan)
    if progress is None:
        return 2
    return finish(job.run(config, plan, progress, timeout=args.timeout, **options), args, plan)


def finish(report, args, plan):
    """Print the report, save its JSON and plot; exit status 2 if input was refused, 1 if a worker failed."""
    sys.stdout.write(render(report, args.format, text_width(args)))
    sys.stdout.flush()
    if args.json:
        write_doc(report.to_dict(), args.json)
    if getattr(args, "csv", None):
        write_csv(report, args.csv)
    if getattr(args, "plot", None):
        from tfgraphs.render.plots import PLOTS
        PLOTS[report.command](report, args.plot)
    if plan.refused:
        return 2
    return 1 if any(not r.ok for r in report.rows) else 0
