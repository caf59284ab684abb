"""The `tfgraphs` command line: a subcommand per command of the registry, then lab, report and server."""

import platform
import signal
import sys

import tfgraphs
from tfgraphs.api.commands import COMMANDS, FUNCTIONS
from tfgraphs.cli import lab, report, server
from tfgraphs.cli.common import Parser, add_command
from tfgraphs.errors import UsageError
from tfgraphs.machine import installed_tf_version


def build_parser(prog="tfgraphs"):
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print the version of tfgraphs and of the TensorFlow it would use, then exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        add_command(sub, command, FUNCTIONS[command.name])
    for own in (lab, report, server):   # commands of the command line alone
        own.add_parser(sub)
    return p


def version_line():
    """tfgraphs' version, and the TensorFlow and Python it would run with (TensorFlow is not imported)."""
    tf = installed_tf_version()
    return (f"tfgraphs {tfgraphs.__version__} (TensorFlow {tf if tf else 'not installed'}, "
            f"Python {platform.python_version()})")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv=None, prog="tfgraphs"):
    args = build_parser(prog).parse_args(argv)
    args.prog = prog
    args.debug = getattr(args, "debug", False)
    # SIGTERM unwinds like Ctrl-C, so the finally blocks end every worker and server this command started.
    signal.signal(signal.SIGTERM, _interrupt)
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
