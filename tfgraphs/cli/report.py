"""`tfgraphs report FILE`: re-render a saved JSON document, without TensorFlow."""

import sys

from tfgraphs.api.outputs import table_format
from tfgraphs.api.commands import COMMANDS
from tfgraphs.api.saved import report
from tfgraphs.cli import SHAPE, add_format_flags, text_width
from tfgraphs.errors import UsageError
from tfgraphs.render import versus
from tfgraphs.units import join


def add_parser(sub):
    """Add `report` to the subcommands."""
    r = sub.add_parser("report", help="re-render a saved JSON report, or compare two (no TensorFlow needed)",
                       description=f"Print the tables and explanations of a file written with --json by "
                                   f"{join(COMMANDS)}, without running anything. Given two files of "
                                   f"{join(c.name for c in COMMANDS.values() if c.comparable)}, print A, B and B/A "
                                   f"per row and phase instead.")
    r.add_argument("path", nargs="+", metavar="PATH", help="one JSON file written with --json, or two to compare")
    add_format_flags(r)
    r.epilog = SHAPE
    r.set_defaults(func=run)


def run(args):
    table_format(args.format)
    if len(args.path) > 2:
        raise UsageError(f"report takes one file, or two to compare, not {len(args.path)}")
    found = [report(path) for path in args.path]
    if len(found) == 1:
        text = found[0].text(args.format, text_width(args), verbose=args.verbose)
    else:
        comparable = [c.name for c in COMMANDS.values() if c.comparable]
        if found[0].command == found[1].command and found[0].command not in comparable:
            raise UsageError(f"report A B compares {', '.join(comparable)} results, not {found[0].command}")
        text = versus.render(*(f.result for f in found), args.path, args.format, text_width(args))
    sys.stdout.write(text)
    return 0

