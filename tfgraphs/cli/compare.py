"""`tfgraphs compare`: the seed network fed several ways, each phase measured in a fresh worker."""

from tfgraphs.cli.common import (add_measure_flags, add_plot_flag, add_variants_flag, check_outputs, choose,
                                 run_job)
from tfgraphs.cli.targets import add_remote_flags, remote_options
from tfgraphs.jobs import compare
from tfgraphs.spec.variants import COMPARED, VARIANTS


def add_parser(sub):
    c = sub.add_parser("compare", help="the seed network fed four ways, each phase measured in a fresh worker",
                       description="Build conv2d -> avg_pool -> relu from the same data in several ways and measure "
                                   "graph size, build, session, init, first run and later runs for each.")
    add_measure_flags(c)
    add_variants_flag(c, COMPARED)
    add_plot_flag(c, "every run's time per variant")
    add_remote_flags(c)
    c.set_defaults(func=run)


def run(args):
    check_outputs(args)
    variants = choose(args.variants, list(VARIANTS), "variant")
    config = compare.Config(batch=args.batch, dtype=args.dtype, runs=args.runs, trials=args.trials, seed=args.seed,
                            variants=variants, **remote_options(args))
    return run_job(args, compare, config)
