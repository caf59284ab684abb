"""What every command line shares: one-line usage errors, number types, output flags, and finishing a report."""

import argparse
import os
import sys
import tempfile

from tfgraphs import render, results
from tfgraphs.limits import UsageError


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


def add_output_flags(p, timeout=True):
    """--format and --json (every command that reports), --timeout and --quiet (every command that runs workers)."""
    p.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    p.add_argument("--json", metavar="PATH", help="also write every result to PATH as JSON (atomically)")
    if timeout:
        p.add_argument("--timeout", type=positive_float, metavar="S",
                       help="kill a worker after S seconds (it becomes a failed row)")
        p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def check_outputs(args, *paths):
    """Refuse a bad --format, a missing matplotlib or an unwritable output path before any work starts."""
    from tabulate import tabulate_formats

    if args.format not in tabulate_formats:
        raise UsageError(f"unknown table format {args.format!r}; choose from {', '.join(tabulate_formats)}")
    if getattr(args, "plot", None):
        from tfgraphs import plots
        plots.require()
    for path in (getattr(args, "json", None), getattr(args, "plot", None), *paths):
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


def finish(report, args, refused=False):
    """Print the report, save its JSON and plot; exit status 2 if input was refused, 1 if a worker failed."""
    sys.stdout.write(render.render(report, args.format))
    sys.stdout.flush()
    if args.json:
        results.write_json(report, args.json)
    if getattr(args, "plot", None):
        from tfgraphs import plots
        (plots.sweep_plot if report.command == "sweep" else plots.compare_plot)(report, args.plot)
    if refused:
        return 2
    return 1 if any(not r.ok for r in report.rows) else 0
