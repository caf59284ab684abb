"""The `tfgraphs` command line: parse flags, check them, run a job, print and save its report."""

import argparse
import sys

from tfgraphs import limits, network, presets, render, results, runner
from tfgraphs.limits import UsageError
from tfgraphs.variants import DEFAULT_VARIANTS, VARIANTS


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be greater than 0")
    return value


def _common(p):
    """Flags every measuring command shares."""
    p.add_argument("--batch", type=positive_int, default=6000,
                   help="examples in X [N,32,32,1] (default 6000, about 50 MB in float64; the seed used 60000, "
                        "where the constant variant needs about 8-9 GB of RAM)")
    p.add_argument("--dtype", default="float64", choices=network.DTYPES, help="data type of X and W (default float64)")
    p.add_argument("--runs", type=positive_int, default=10, help="timed runs after the first (default 10)")
    p.add_argument("--trials", type=positive_int, default=1,
                   help="fresh workers per variant, in rotating order; the report shows the median (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data generator (default 0)")
    p.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    p.add_argument("--json", metavar="PATH", help="also write every result to PATH as JSON (atomically)")
    p.add_argument("--timeout", type=positive_float, metavar="S", help="kill a worker after S seconds (a failed row)")
    p.add_argument("--force", action="store_true", help="run even when the memory estimate exceeds what is available")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def build_parser(prog="tfgraphs"):
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    p.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    c = sub.add_parser("compare", help="the seed network fed four ways, each phase measured in a fresh worker",
                       description="Build conv2d -> avg_pool -> relu from the same data in several ways and measure "
                                   "graph size, build, session, init, first run and later runs for each.")
    _common(c)
    c.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help=f"comma-separated, from {', '.join(VARIANTS)} (default {','.join(DEFAULT_VARIANTS)})")
    c.set_defaults(func=cmd_compare)

    r = sub.add_parser("report", help="re-render a saved JSON report (no TensorFlow needed)")
    r.add_argument("path", help="a JSON file written with --json")
    r.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    r.set_defaults(func=cmd_report)
    return p


def _check_format(fmt):
    from tabulate import tabulate_formats
    if fmt not in tabulate_formats:
        raise UsageError(f"unknown table format {fmt!r}; choose from {', '.join(tabulate_formats)}")


def cmd_compare(args):
    from tfgraphs import compare

    _check_format(args.format)
    names = limits.choose(args.variants, list(VARIANTS), "variant")
    config = compare.Config(batch=args.batch, dtype=args.dtype, runs=args.runs, trials=args.trials,
                            seed=args.seed, variants=tuple(names))
    refused = compare.refusals(config)
    for reason in refused.values():
        print(f"tfgraphs: refusing {reason}", file=sys.stderr)
    if len(refused) == len(names):
        return 2
    limits.check_memory([v for v in names if v not in refused], args.batch, args.dtype, args.force)
    progress = runner.Progress(total=len(names) * args.trials - len(refused) * args.trials, quiet=args.quiet)
    report = compare.run(config, progress, timeout=args.timeout)
    return _finish(report, args, refused=bool(refused))


def _finish(report, args, refused=False):
    """Save, print, and choose the exit status: 2 if input was refused, 1 if a worker failed."""
    if args.json:
        results.write_json(report, args.json)
    sys.stdout.write(render.render(report, args.format))
    if refused:
        return 2
    return 1 if any(not r.ok for r in report.rows) else 0


def cmd_report(args):
    _check_format(args.format)
    try:
        report = results.read_json(args.path)
    except OSError as exc:
        raise UsageError(f"cannot read {args.path}: {exc.strerror}") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{args.path} is not a tfgraphs results file ({exc})") from None
    sys.stdout.write(render.render(report, args.format))
    return 0


def main(argv=None, prog="tfgraphs"):
    args = build_parser(prog).parse_args(argv)
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
