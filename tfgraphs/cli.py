"""The `tfgraphs` command line: parse flags, check them, run a job, print and save its report."""

import argparse
import dataclasses
import json
import os
import sys

from tfgraphs import ablation, limits, network, presets, render, results, runner, shapes_cli, sweep
from tfgraphs.cliargs import Parser, add_output_flags, check_output_dir, check_outputs, finish, positive_int, seed
from tfgraphs.limits import UsageError
from tfgraphs.variants import DEFAULT_VARIANTS, VARIANTS


def batch_list(text):
    """argparse type: comma-separated batches, each a whole number >= 1; sorted, repeats dropped."""
    batches = sorted({positive_int(t.strip()) for t in text.split(",") if t.strip()})
    if len(batches) < 2:
        raise argparse.ArgumentTypeError(f"{text!r} names fewer than two different batches, too few to fit a line")
    return tuple(batches)


def _variants_flag(p, default):
    p.add_argument("--variants", default=",".join(default),
                   help=f"comma-separated, from {', '.join(VARIANTS)} (default {','.join(default)})")


def _plot_flag(p, what):
    p.add_argument("--plot", metavar="PATH.png",
                   help=f"also plot {what} to PATH.png (needs matplotlib: pip install -e '.[viz]')")


def _measure_flags(p, runs=10, batch=True):
    """Flags of the commands that measure the seed network (sweep has --batches instead of --batch)."""
    if batch:
        p.add_argument("--batch", type=positive_int, default=6000,
                       help="examples in X [N,32,32,1] (default 6000, about 50 MB in float64; the seed used 60000, "
                            "where the constant variant needs about 8-9 GB of RAM)")
    p.add_argument("--dtype", default="float64", choices=network.DTYPES, help="data type of X and W (default float64)")
    p.add_argument("--runs", type=positive_int, default=runs, help=f"timed runs after the first (default {runs})")
    p.add_argument("--trials", type=positive_int, default=1,
                   help="fresh workers per variant, in rotating order; the report shows the median (default 1)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the data generator (default 0)")
    p.add_argument("--force", action="store_true", help="run even when the memory estimate exceeds what is available")
    add_output_flags(p)


def build_parser(prog="tfgraphs"):
    p = Parser(prog=prog, description="Measure how TensorFlow 1.x graph mode spends its time and memory.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)

    c = sub.add_parser("compare", help="the seed network fed four ways, each phase measured in a fresh worker",
                       description="Build conv2d -> avg_pool -> relu from the same data in several ways and measure "
                                   "graph size, build, session, init, first run and later runs for each.")
    _measure_flags(c)
    _variants_flag(c, DEFAULT_VARIANTS)
    _plot_flag(c, "every run's time per variant")
    c.set_defaults(func=cmd_compare)

    e = sub.add_parser("explain", help="what the first sess.run pays for: optimizer ablation, per-op traces",
                       description="Run each variant under session presets that switch graph optimizers off, "
                                   "trace the first and a later run of each, and split the first run's extra time "
                                   "into Grappler, classic constant folding and the rest.")
    _measure_flags(e)
    _variants_flag(e, ablation.DEFAULT_VARIANTS)
    e.add_argument("--presets", default=",".join(presets.PRESETS),
                   help="comma-separated session presets: " + "; ".join(f"{k} = {v}" for k, v in presets.PRESETS.items())
                        + " (default: all)")
    e.add_argument("--trace", metavar="DIR", help="write a Chrome trace (Perfetto, chrome://tracing) of the first "
                                                  "and second run of each variant x preset to DIR")
    e.add_argument("--tensorboard", metavar="DIR", help="write each variant's graph for `tensorboard --logdir DIR`")
    e.set_defaults(func=cmd_explain)

    s = sub.add_parser("sweep", help="graph size, time and memory against batch, fitted up to the 2 GiB limit",
                       description="Measure each variant at each batch in a fresh worker, fit graph bytes = "
                                   "a*batch + b, predict the largest batch under 2 GiB, and ask TensorFlow to embed "
                                   "the next one (from a zero-stride array view).")
    d = sweep.Config()
    _measure_flags(s, runs=d.runs, batch=False)
    s.add_argument("--batches", type=batch_list, default=d.batches, metavar="N,N,...",
                   help=f"comma-separated batches, at least two (default {','.join(map(str, d.batches))})")
    _variants_flag(s, d.variants)
    _plot_flag(s, "graph bytes and first-run time against batch")
    s.set_defaults(func=cmd_sweep)

    i = sub.add_parser("inspect", help="what is inside a GraphDef or SavedModel file (nothing is run)",
                       description="Report a GraphDef's size, node count, op types, largest Const nodes and "
                                   "headroom to 2 GiB. The graph is only parsed: never imported or executed.")
    i.add_argument("path", help="a GraphDef (.pb binary, .pbtxt text), a SavedModel directory or its saved_model.pb")
    i.add_argument("--top", type=positive_int, default=10, help="largest Const nodes to list (default 10)")
    add_output_flags(i, timeout=False)
    i.add_argument("--strip-constants", metavar="OUT.pbtxt",
                   help="write a text copy of the graph with every tensor's contents removed (dtype and shape kept)")
    i.set_defaults(func=cmd_inspect)

    shapes_cli.add_parser(sub)

    lab = sub.add_parser("lab", help="course labs: list them, or check a solution",
                         description="Check a lab solution: prints each check as ok or WRONG with a hint, and "
                                     "exits 0 only when every check passes. The sheets and starters are in labs/.")
    lab_sub = lab.add_subparsers(dest="lab_command", required=True, parser_class=Parser)
    lab_sub.add_parser("list", help="the labs and what each one is about").set_defaults(func=cmd_lab_list)
    lab_check = lab_sub.add_parser("check", help="run lab N's checks on your file")
    lab_check.add_argument("number", type=positive_int, help="the lab's number")
    lab_check.add_argument("path", help="your solution, e.g. labs/1-feed/starter.py")
    lab_check.set_defaults(func=cmd_lab_check)

    r = sub.add_parser("report", help="re-render a saved JSON report (no TensorFlow needed)",
                       description="Print the tables and explanations of a file written with --json by compare, "
                                   "explain, sweep, shapes or inspect, without running anything.")
    r.add_argument("path", help="a JSON file written with --json")
    r.add_argument("--format", default="simple", metavar="FMT", help="any tabulate table format (default simple)")
    r.set_defaults(json=None)
    r.set_defaults(func=cmd_report)
    return p


def cmd_compare(args):
    from tfgraphs import compare

    check_outputs(args)
    names = limits.choose(args.variants, list(VARIANTS), "variant")
    config = compare.Config(batch=args.batch, dtype=args.dtype, runs=args.runs, trials=args.trials,
                            seed=args.seed, variants=tuple(names))
    refused, progress = _plan(args, config, workers_per_variant=args.trials)
    if progress is None:
        return 2
    report = compare.run(config, progress, timeout=args.timeout)
    return finish(report, args, refused=bool(refused))


def cmd_explain(args):
    check_outputs(args)
    check_output_dir(args.trace)
    check_output_dir(args.tensorboard)
    names = limits.choose(args.variants, list(VARIANTS), "variant")
    chosen = limits.choose(args.presets, list(presets.PRESETS), "preset")
    config = ablation.Config(batch=args.batch, dtype=args.dtype, runs=args.runs, trials=args.trials,
                             seed=args.seed, variants=tuple(names), presets=tuple(chosen))
    # Refused variants are left out here: the ablation of a graph that cannot be built says nothing.
    refused, progress = _plan(args, config, workers_per_variant=len(chosen) * (args.trials + 1))
    if progress is None:
        return 2
    config = dataclasses.replace(config, variants=tuple(v for v in names if v not in refused))
    report = ablation.run(config, progress, timeout=args.timeout, trace_dir=args.trace,
                          tensorboard_dir=args.tensorboard)
    return finish(report, args, refused=bool(refused))


def _plan(args, config, workers_per_variant):
    """Print refusals and check memory; return (refused, progress), progress None when nothing can run."""
    from tfgraphs import compare

    refused = compare.refusals(config)
    for reason in refused.values():
        print(f"{args.prog}: refusing {reason}", file=sys.stderr)
    runnable = [v for v in config.variants if v not in refused]
    if not runnable:
        return refused, None
    limits.check_memory(runnable, config.batch, config.dtype, args.force)
    return refused, runner.Progress(total=len(runnable) * workers_per_variant, quiet=args.quiet)


def cmd_sweep(args):
    check_outputs(args)
    names = limits.choose(args.variants, list(VARIANTS), "variant")
    config = sweep.Config(batches=args.batches, dtype=args.dtype, runs=args.runs, trials=args.trials,
                          seed=args.seed, variants=tuple(names))
    refused = sweep.refusals(config)
    for (b, _), reason in refused.items():
        print(f"{args.prog}: refusing batch {b:,}: {reason}", file=sys.stderr)
    if len(refused) == len(config.batches) * len(names):
        return 2
    for b in config.batches:
        limits.check_memory([v for v in names if (b, v) not in refused], b, args.dtype, args.force)
    report = sweep.run(config, runner.Progress(total=sweep.workers(config), quiet=args.quiet), timeout=args.timeout)
    return finish(report, args, refused=bool(refused))


def cmd_inspect(args):
    from tfgraphs import graphfile, inspect_graph

    check_outputs(args, args.strip_constants)
    read = graphfile.locate(args.path)[0]   # the file actually read: a SavedModel directory's saved_model.pb
    for flag, out in (("--json", args.json), ("--strip-constants", args.strip_constants)):
        if out and os.path.exists(out) and os.path.samefile(out, read):
            raise UsageError(f"{flag} {out} would overwrite the graph it reads")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # nothing runs here, so TensorFlow has nothing to report
    graph_def, source = graphfile.load(args.path)
    found = inspect_graph.summarize(graph_def, source, top=args.top)
    if args.json:
        results.write_doc(found.to_dict(), args.json)
    if args.strip_constants:
        inspect_graph.write_stripped(graph_def, args.strip_constants)
    sys.stdout.write(inspect_graph.render(found, args.format))
    return 0


def cmd_lab_list(args):
    from tfgraphs.labs import LABS
    for number, (_, title) in LABS.items():
        print(f"{number}. {title}")
    return 0


def cmd_lab_check(args):
    from tfgraphs.labs.checking import check_lab

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # the checks report what matters; TensorFlow's logs do not
    return check_lab(args.number, args.path)


def cmd_report(args):
    check_outputs(args)
    try:
        with open(args.path) as f:
            doc = json.load(f)
    except OSError as exc:
        raise UsageError(f"cannot read {args.path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UsageError(f"{args.path} is not JSON ({exc})") from None
    try:
        if isinstance(doc, dict) and doc.get("tool") == results.TOOL and doc.get("command") == "inspect":
            from tfgraphs import inspect_graph
            found = inspect_graph.Inspection.from_dict(doc)
            text = inspect_graph.render(found, args.format)
        else:
            text = render.render(results.Report.from_dict(doc), args.format)
    except ValueError as exc:
        raise UsageError(f"{args.path}: {exc}") from None
    except KeyError as exc:
        raise UsageError(f"{args.path} is not a complete tfgraphs results file (no {exc} in it)") from None
    sys.stdout.write(text)
    return 0


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
