"""`tfgraphs explain`: what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.cli.common import (add_measure_flags, add_variants_flag, check_output_dir, check_outputs, choose,
                                 run_job)
from tfgraphs.cli.owngraph import add_graph_flags, explain_graph
from tfgraphs.cli.targets import add_remote_flags, remote_options
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.variants import VARIANTS


def add_parser(sub):
    e = sub.add_parser("explain", help="what the first sess.run pays for: optimizer ablation, per-op traces",
                       description="Run each variant under session presets that switch graph optimizers off, "
                                   "trace the first and a later run of each, and split the first run's extra time "
                                   "into Grappler, classic constant folding and the rest.")
    add_measure_flags(e)
    add_variants_flag(e, explain.EXPLAINED)
    e.add_argument("--presets", default=",".join(PRESETS),
                   help="comma-separated session presets: "
                        + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()) + " (default: all)")
    e.add_argument("--trace", metavar="DIR", help="write a Chrome trace (Perfetto, chrome://tracing) of the first "
                                                  "and second run of each variant x preset to DIR")
    e.add_argument("--tensorboard", metavar="DIR", help="write each variant's graph for `tensorboard --logdir DIR`")
    add_remote_flags(e, beside=False)
    e.add_argument("--graph", metavar="PATH", help="explain this .pb/.pbtxt GraphDef or SavedModel folder instead of "
                                                    "the built-in network (--batch, --dtype, --variants do not apply)")
    add_graph_flags(e)
    e.set_defaults(func=run)


def run(args):
    check_outputs(args)
    check_output_dir(args.trace)
    check_output_dir(args.tensorboard)
    if args.graph:
        if args.target:
            raise UsageError("--target measures the built-in network; it does not apply with --graph")
        return explain_graph(args)
    config = explain.Config(batch=args.batch, dtype=args.dtype, runs=args.runs, trials=args.trials, seed=args.seed,
                            variants=choose(args.variants, list(VARIANTS), "variant"),
                            presets=choose(args.presets, list(PRESETS), "preset"),
                            **remote_options(args, beside=False))
    return run_job(args, explain, config, trace_dir=args.trace, tensorboard_dir=args.tensorboard)
