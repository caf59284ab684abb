"""`tfgraphs sweep`: graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit."""

from tfgraphs.cli.common import (add_measure_flags, add_plot_flag, add_variants_flag, batch_list, check_outputs,
                                 choose, run_job)
from tfgraphs.jobs import sweep
from tfgraphs.spec.variants import VARIANTS


def add_parser(sub):
    s = sub.add_parser("sweep",
                       help="graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit",
                       description="Measure each variant at each batch in a fresh worker, fit graph bytes = "
                                   "a*batch + b, predict the largest batch whose GraphDef serializes under 2 GiB, "
                                   "and ask TensorFlow to embed the next one (from a zero-stride array view).")
    d = sweep.Config()
    add_measure_flags(s, runs=d.runs, batch=False)
    s.add_argument("--batches", type=batch_list, default=d.batches, metavar="N,N,...",
                   help=f"comma-separated batches, at least two (default {','.join(map(str, d.batches))})")
    add_variants_flag(s, d.variants)
    add_plot_flag(s, "graph bytes and first-run time against batch")
    s.set_defaults(func=run)


def run(args):
    check_outputs(args)
    config = sweep.Config(batches=args.batches, dtype=args.dtype, runs=args.runs, trials=args.trials, seed=args.seed,
                          variants=choose(args.variants, list(VARIANTS), "variant"))
    return run_job(args, sweep, config)
