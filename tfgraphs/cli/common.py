"""What every command line shares: one-line usage errors, flags handed to the Python API as keywords, the output.

A flag's default is the API function's: a flag left out is not passed, so the function's own default applies.
"""

import argparse
import inspect
import sys

from tfgraphs.api.options import MOST
from tfgraphs.api.running import REMOTE_TIMEOUT_S
from tfgraphs.render.page import SHOWN, output_width

OMITTED = argparse.SUPPRESS   # a flag left out stays out of the call, and the API's default applies


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
    """argparse type of the commands that are not measurements (lab, server): a whole number >= 1."""
    return _number(text, int, "a whole number", lambda v: v >= 1, "at least 1")


def seed(text):
    """argparse type: a whole number >= 0 (NumPy's generators take no negative seed, nor a task index)."""
    return _number(text, int, "a whole number", lambda v: v >= 0, "0 or more")


def port(text):
    """argparse type: a TCP port, 1 to 65535."""
    return _number(text, int, "a whole number", lambda v: 1 <= v <= 65535, "a port from 1 to 65535")


def positive_float(text):
    """argparse type: a finite number > 0 (NaN and infinity are refused too)."""
    return _number(text, float, "a number", lambda v: 0 < v < float("inf"), "finite and greater than 0")


def default(func, name):
    """The default of func's keyword `name`, as help text shows it."""
    value = inspect.signature(func).parameters[name].default
    return ",".join(map(str, value)) if isinstance(value, (tuple, list)) else value


def option(p, func, name, what, **kwargs):
    """--name (dashes for underscores), passed to func as name=; its help ends with func's default."""
    shown = kwargs.pop("shown", None)
    bound = f", at most {MOST[name]:,}" if name in MOST else ""
    p.add_argument("--" + name.replace("_", "-"), dest=name, default=OMITTED, **kwargs,
                   help=f"{what} (default {shown if shown is not None else default(func, name)}{bound})")


CLI_ONLY = {"func", "debug", "prog", "command", "format", "wide", "verbose"}   # flags of the text output and of argparse itself


def call(func, args, leave=()):
    """func(**the flags given but those in leave); every flag but the text output's is one of func's keywords."""
    given = {name: value for name, value in vars(args).items() if name not in CLI_ONLY and name not in leave}
    unknown = set(given) - set(inspect.signature(func).parameters) - set(leave)
    assert not unknown, f"flags {sorted(unknown)} are not keywords of {func.__name__}"
    return func(**given)


def add_measure_flags(p, func, batch=True):
    """Flags of the commands that measure the seed network (sweep has --batches instead of --batch)."""
    if batch:
        option(p, func, "batch", "examples in X [N,32,32,1]", shown=f"{default(func, 'batch')}, about 50 MB in "
               "float64; the seed used 60000, where the constant variant needs about 8-9 GB of RAM")
    option(p, func, "dtype", "data type of X and W: float64, float32 or float16")
    option(p, func, "runs", "timed runs after the first")
    option(p, func, "trials", "fresh workers per variant, in rotating order; the report shows the median")
    option(p, func, "seed", "seed of the data generator, 0 or more")
    add_force_flag(p)
    add_output_flags(p)


def add_force_flag(p):
    p.add_argument("--force", action="store_true", default=OMITTED,
                   help="run even when the memory estimate exceeds what is available")


def add_variants_flag(p, func, known):
    option(p, func, "variants", f"comma-separated, from {', '.join(known)}")


def add_plot_flag(p, command):
    """--plot, when the command has a figure: what it shows comes from the registry, as its answer names it."""
    if command.figure:
        p.add_argument("--plot", metavar="PATH.png", default=OMITTED,
                       help=f"also draw the figure ({command.figure}) to PATH.png (needs matplotlib: pip install -e "
                            f"'.[viz]')")


def add_format_flags(p):
    """--format and --wide: how the text report is laid out."""
    p.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    p.add_argument("--wide", action="store_true",
                   help="one wide table per section and unfolded lines, for copying (default: fit 100 columns, or "
                        "the terminal's width)")
    p.add_argument("--verbose", action="store_true",
                   help=f"every table and every finding (default: the answer, the key table and the first "
                        f"{SHOWN} findings; the JSON always holds everything)")


# How every report's text is laid out, as --help says it.
SHAPE = ("output: the answer first, in a few lines from this run (with where --plot draws its figure), then the key "
         f"table, then the first {SHOWN} findings, most important first; --verbose prints every table and finding, "
         "and --json keeps everything.")


def add_output_flags(p, measuring=True, csv=True):
    """--format, --wide and --json (every command that reports); --csv, --timeout and --quiet (those that measure)."""
    p.epilog = SHAPE
    add_format_flags(p)
    p.add_argument("--json", metavar="PATH", default=OMITTED,
                   help="also write every result to PATH as JSON (atomically)")
    if measuring and csv:
        p.add_argument("--csv", metavar="PATH", default=OMITTED,
                       help="also write one flat row per variant x trial (or per call for shapes) to PATH as CSV, "
                            "times in s and sizes in bytes")
    if measuring:
        p.add_argument("--timeout", metavar="S", default=OMITTED,
                       help="kill a worker after S seconds (it becomes a failed row); default none, and "
                            f"{REMOTE_TIMEOUT_S:g} with a remote --target")
        p.add_argument("--quiet", action="store_true", default=OMITTED, help="no progress lines on stderr")


def text_width(args):
    """The width the report is fitted to: None with --wide."""
    return None if args.wide else output_width(sys.stdout)


def show(report, args):
    """Print the report; exit status 2 if the plan refused a row, 1 if a row failed, else 0."""
    sys.stdout.write(report.text(args.format, text_width(args), verbose=args.verbose))
    sys.stdout.flush()
    if report.refused:
        return 2
    return 1 if report.failed else 0


# The flags that name a file a command reads: no output may be written over one of them.
INPUTS = ("path", "graph")


def inputs_of(args):
    """The files the command reads, by its input flags (report takes a list of them)."""
    given = [getattr(args, name, None) for name in INPUTS]
    return [p for g in given if g for p in (g if isinstance(g, list) else [g])]


def run_api(func, args):
    """The command: check --format and the output paths, run the API function on the other flags given, print its
    report, then write the JSON, CSV and plot asked for (so a failed write still leaves the report printed)."""
    from tfgraphs.api.options import table_format
    from tfgraphs.api.running import check_outputs

    table_format(args.format)
    outputs = {name: getattr(args, name) for name in ("json", "csv", "plot") if hasattr(args, name)}
    check_outputs(**outputs, inputs=inputs_of(args))
    report = call(func, args, leave=outputs)
    status = show(report, args)
    report.write(**outputs)
    return status
