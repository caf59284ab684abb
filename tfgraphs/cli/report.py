"""`tfgraphs report FILE`: re-render a saved JSON document, without TensorFlow."""

import sys

from tfgraphs.cli.common import add_format_flags, check_outputs, text_width
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc
from tfgraphs.records.report import load
from tfgraphs.render import render


def add_parser(sub):
    r = sub.add_parser("report", help="re-render a saved JSON report (no TensorFlow needed)",
                       description="Print the tables and explanations of a file written with --json by compare, "
                                   "explain, sweep, shapes or inspect, without running anything.")
    r.add_argument("path", help="a JSON file written with --json")
    add_format_flags(r)
    r.set_defaults(json=None, func=run)


def run(args):
    check_outputs(args)
    doc = read_doc(args.path)
    try:
        text = render(load(doc), args.format, text_width(args))
    except ValueError as exc:
        raise UsageError(f"{args.path}: {exc}") from None
    except KeyError as exc:
        raise UsageError(f"{args.path} is not a complete tfgraphs results file (no {exc} in it)") from None
    sys.stdout.write(text)
    return 0
