"""`tfgraphs report FILE`: re-render a saved JSON document, without TensorFlow."""

import sys

from tfgraphs.cli.common import add_format_flags, check_outputs, text_width
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc
from tfgraphs.records.report import load
from tfgraphs.render import render, versus


def add_parser(sub):
    r = sub.add_parser("report", help="re-render a saved JSON report, or compare two (no TensorFlow needed)",
                       description="Print the tables and explanations of a file written with --json by compare, "
                                   "explain, sweep, shapes, inspect or unembed, without running anything. Given two "
                                   "files of compare, explain or sweep, print A, B and B/A per row and phase instead.")
    r.add_argument("path", nargs="+", metavar="PATH", help="one JSON file written with --json, or two to compare")
    add_format_flags(r)
    r.set_defaults(json=None, func=run)


def run(args):
    check_outputs(args)
    if len(args.path) > 2:
        raise UsageError(f"report takes one file, or two to compare, not {len(args.path)}")
    results = [_load(path) for path in args.path]
    if len(results) == 1:
        text = _rendered(args.path[0], lambda: render(results[0], args.format, text_width(args)))
    else:
        text = versus.render(*results, args.path, args.format, text_width(args))
    sys.stdout.write(text)
    return 0


def _load(path):
    return _rendered(path, lambda: load(read_doc(path)))


def _rendered(path, make):
    """make(), with a saved document's faults turned into one-line usage errors naming path."""
    try:
        return make()
    except UsageError:
        raise
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None
    except KeyError as exc:
        raise UsageError(f"{path} is not a complete tfgraphs results file (no {exc} in it)") from None
