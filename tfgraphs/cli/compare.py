"""`tfgraphs compare`: the seed network fed several ways, each phase measured in a fresh worker."""

from tfgraphs.api.compare import compare
from tfgraphs.cli.common import add_measure_flags, add_plot_flag, add_variants_flag, run_api
from tfgraphs.cli.targets import add_remote_flags
from tfgraphs.spec.variants import VARIANTS


def add_parser(sub, command):
    c = sub.add_parser("compare", help=command.summary,
                       description="Build conv2d -> avg_pool -> relu from the same data in several ways and measure "
                                   "graph size, build, session, init, first run and later runs for each.")
    add_measure_flags(c, compare)
    add_variants_flag(c, compare, VARIANTS)
    add_plot_flag(c, command)
    add_remote_flags(c, compare)
    c.set_defaults(func=lambda args: run_api(compare, args))
