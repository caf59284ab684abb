"""The `tfgraphs` command line: one module per command, each adding its parser and running it."""

import platform
import signal
import sys
from importlib import import_module

import tfgraphs
from tfgraphs.cli.common import Parser
from tfgraphs.errors import UsageError
from tfgraphs.machine import installed_tf_version
from tfgraphs.spec.commands import COMMANDS


def build_parser(prog="tfgraphs"):
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print the version of tfgraphs and of the TensorFlow it would use, then exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        import_module(f"tfgraphs.cli.{command.name}").add_parser(sub, command)
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
