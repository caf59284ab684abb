"""The `tfgraphs` command line: one module per command, each adding its parser and running it."""

import sys

from tfgraphs.cli import compare, explain, inspect, lab, report, shapes, sweep, unembed
from tfgraphs.cli.common import Parser
from tfgraphs.errors import UsageError

COMMANDS = (compare, explain, sweep, inspect, unembed, shapes, lab, report)


def build_parser(prog="tfgraphs"):
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return p


def main(argv=None, prog="tfgraphs"):
    args = build_parser(prog).parse_args(argv)
    args.prog = prog
    args.debug = getattr(args, "debug", False)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.debug:
            raise
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)",
              file=sys.stderr)
        return 1
