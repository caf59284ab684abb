"""The `tfgraphs` command line: a subcommand per command of the registry, each flag derived from the option its API
function declares (spec.options), then lab, report and server (cli.subcommands); usage errors are one line and exit
status 2."""

import argparse
import os
import platform
import signal
import sys

try:
    import resource   # imported before any limit is reached: it is asked once one is
except ImportError:   # Windows has no resource limits of this kind
    resource = None

import tfgraphs
from tfgraphs.api.commands import COMMANDS, FUNCTIONS
from tfgraphs.api.outputs import table_format
from tfgraphs.errors import UsageError
from tfgraphs.machine import installed_tf_version
from tfgraphs.render.page import SHOWN, WIDTH, output_width
from tfgraphs.spec.options import REQUIRED, flag, switch

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


def typed(check, name):
    """An argparse type from an option's check: the checked value, or argparse's one-line usage error."""
    def parse(text):
        try:
            return check(name, text)
        except UsageError as exc:
            # argparse names the flag itself: "argument --port: 99999 must be at most 65,535".
            raise argparse.ArgumentTypeError(str(exc).removeprefix(flag(name) + " ")) from None
    return parse


def _help(option, command):
    """The option's help, ending with its default and bounds; {figure} and {lines} name the command's own."""
    described = option.help.format(figure=command.shows, lines=command.lines.each if command.lines else None)
    default = option.default
    if default is REQUIRED or option.shown is None and (default is None or isinstance(default, bool)):
        return described
    shown = option.shown if option.shown is not None else (
        ",".join(map(str, default)) if isinstance(default, (tuple, list)) else default)
    bounds = option.check.bounds() if hasattr(option.check, "bounds") else ""
    parts = ["repeatable" if option.repeat else "", f"default {shown}" + (f", {option.note}" if option.note else ""),
             bounds]
    return f"{described} ({'; '.join(p for p in parts if p)})"


def add_command(sub, command, flagged=True):
    """The command's subcommand: a flag per option its API function declares, and that function run on them; not
    flagged, its name and help alone (its flags need its Config imported)."""
    p = sub.add_parser(command.name, help=command.summary, description=command.description)
    if flagged:
        function = FUNCTIONS[command.name]
        add_options(p, function, command)
        p.set_defaults(func=lambda args: run_api(function, args))


def add_options(p, func, command):
    """A flag for each option func declares, named after its keyword (dashes for underscores), then the text
    output's flags. A flag left out is not passed, so the declared default applies."""
    for name, option in func.options.items():
        dashed = flag(name)
        if option.rest:
            p.add_argument(name, nargs=argparse.REMAINDER, metavar=option.metavar, help=option.help)
        elif option.positional:
            p.add_argument(name, metavar=option.metavar, help=option.help)
        elif option.default is REQUIRED:
            p.add_argument(*[f for f in (option.short, dashed) if f], dest=name, required=True,
                           metavar=option.metavar, help=_help(option, command))
        elif option.check is switch:
            no = option.default is True   # a switch on by default is turned off by --no-NAME
            p.add_argument("--no-" + dashed[2:] if no else dashed, dest=name, default=OMITTED,
                           action="store_false" if no else "store_true", help=_help(option, command))
        else:
            p.add_argument(*[f for f in (option.short, dashed) if f], dest=name, default=OMITTED,
                           metavar=option.metavar,
                           action="append" if option.repeat else "store", help=_help(option, command))
    add_format_flags(p)


CLI_ONLY = {"func", "debug", "prog", "command", "format", "wide", "verbose"}   # flags of the text output and of argparse itself


def flags(args):
    """The flags given, as func's keywords: all but the text output's and argparse's own."""
    return {name: value for name, value in vars(args).items() if name not in CLI_ONLY}


def add_format_flags(p):
    """--format, --wide and --verbose: how the text report is laid out (the epilog says the shape)."""
    p.epilog = SHAPE
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


def text_width(args):
    """The width the report is fitted to: None with --wide."""
    return None if args.wide else output_width(sys.stdout)


def show(report, args, to=None):
    """Print the report, or write it to the file to (--output); exit status 2 if the plan refused a row, 1 if a row
    failed, else 0 (a watched script's own status, whatever was seen)."""
    text = report.text(args.format, None if args.wide else WIDTH if to else output_width(sys.stdout),
                       verbose=args.verbose)
    if to:
        report.to_text(text, to)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    if getattr(report.result, "exit_code", None) is not None:
        return report.result.exit_code
    if report.refused:
        return 2
    return 1 if report.failed else 0


def run_api(func, args):
    """The command: check --format and every flag given, everything the command writes included, run the API
    function on them once checked, print its report, then write the JSON, CSV and plot asked for (so a failed write
    still leaves the report printed)."""
    table_format(args.format)
    outputs = {name: getattr(args, name) for name in ("json", "csv", "plot") if hasattr(args, name)}
    checked = func.check(**flags(args))
    # The report goes to --output as laid out here, once run: the run itself writes none.
    to = checked.get("output")
    report = func.run(**{**checked, **dict.fromkeys(outputs), **({"output": None, "quiet": True} if to else {})})
    status = show(report, args, to)
    report.write(**outputs)
    return status


def build_parser(prog="tfgraphs", flagged=None):
    """The command line's parser; flagged: the commands whose flags it needs (None: every command's)."""
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    p.add_argument("--version", action="version", version=version_line(),
                   help="print the version of tfgraphs and of the TensorFlow it would use, then exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        add_command(sub, command, flagged is None or command.name in flagged)
    # Commands of the command line alone; they build on this module's Parser, so they are imported once it exists.
    from tfgraphs.cli.subcommands import add_parsers
    add_parsers(sub)
    return p


def version_line():
    """tfgraphs' version, and the TensorFlow and Python it would run with (TensorFlow is not imported)."""
    tf = installed_tf_version()
    return (f"tfgraphs {tfgraphs.__version__} (TensorFlow {tf if tf else 'not installed'}, "
            f"Python {platform.python_version()})")


# Signals that end a command as Ctrl-C does: the finally blocks end every worker and server it started, and remove
# its temporary folders; the exit status is then a shell's for the signal, 128 + N.
ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_received = []   # the ending signal this process got, once it got one


def _interrupt(signum, frame):
    """Unwind like Ctrl-C on the first ending signal; a second one while unwinding must not cut the cleanup short."""
    if not _received:
        _received.append(signum)
        raise KeyboardInterrupt


def _stopped(prog):
    """Say what stopped the command, in one line; the status a shell gives it (130 for Ctrl-C, 128 + N for N)."""
    if not _received:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    print(f"{prog}: ended by {signal.Signals(_received[0]).name}", file=sys.stderr)
    return 128 + _received[0]


def out_of_memory(exc):
    """True for a MemoryError, a library that could not be mapped into memory, or any error at the memory limit."""
    unmapped = any(words in str(exc) for words in ("failed to map segment", "Cannot allocate memory"))
    return isinstance(exc, MemoryError) or unmapped or reached_memory_limit()


def _out_of_memory(prog, exc):
    """Say that this process ran out of memory, and under which limit; the exit status for it."""
    print(f"{prog}: ran out of memory{memory_limit()} ({type(exc).__name__}); free some, or raise the limit",
          file=sys.stderr)
    return 2


def reached_memory_limit():
    """True when this process's largest address space (VmPeak, Linux) came within 1% of its limit (ulimit -v)."""
    # An allocation failed there, whatever error the library that asked made of it: a C extension may raise
    # SystemError "error return without exception set".
    limit = address_space_limit()
    if limit is None:
        return False
    try:
        with open("/proc/self/status") as status:
            peak_kib = next(int(line.split()[1]) for line in status if line.startswith("VmPeak:"))
    except (OSError, StopIteration, ValueError):
        return False
    return peak_kib * 1024 >= 0.99 * limit


def address_space_limit():
    """This process's limit on its address space in bytes (ulimit -v), or None."""
    if resource is None:   # Windows
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    return None if limit == resource.RLIM_INFINITY else limit


def memory_limit():
    """' under this process's limit of N bytes (ulimit -v)' when it has one, else ''."""
    limit = address_space_limit()
    return "" if limit is None else f" under this process's limit of {limit:,} bytes (ulimit -v)"


def command_named(argv):
    """The command argv names: its first word that is not a flag (no flag before a command takes a value)."""
    words = [word for word in argv if not word.startswith("-")]
    return words[0] if words else None


def main(argv=None, prog="tfgraphs"):
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(prog, flagged=[command_named(argv)]).parse_args(argv)
    args.prog = prog
    args.debug = getattr(args, "debug", False)
    _received.clear()
    for sig in ENDING:
        signal.signal(sig, _interrupt)
    try:
        return args.func(args)
    except UsageError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return _stopped(prog)
    except BrokenPipeError:
        # The reader of stdout left (`| head`): nothing more can be shown. Python flushes stdout at exit, so it is
        # pointed at the null device first; the status is a shell's for SIGPIPE.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + getattr(signal, "SIGPIPE", 13)
    except (MemoryError, ImportError) as exc:
        if args.debug or not out_of_memory(exc):
            raise
        return _out_of_memory(prog, exc)
    except Exception as exc:
        if _received and not args.debug:
            return _stopped(prog)   # a worker or server the signal ended first broke a connection or a pipe
        if args.debug:
            raise
        if out_of_memory(exc):
            return _out_of_memory(prog, exc)
        print(f"{prog}: internal error: {type(exc).__name__}: {exc} (rerun with --debug for a traceback)",
              file=sys.stderr)
        return 1
