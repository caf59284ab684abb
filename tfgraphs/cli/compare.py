"""`tfgraphs compare`: the seed network fed several ways, each phase measured in a fresh worker."""

from tfgraphs.api.compare import compare
from tfgraphs.cli.common import add_options, run_api


def add_parser(sub, command):
    c = sub.add_parser("compare", help=command.summary,
                       description="Build conv2d -> avg_pool -> relu from the same data in several ways and measure "
                                   "graph size, build, session, init, first run and later runs for each.")
    add_options(c, compare, command)
    c.set_defaults(func=lambda args: run_api(compare, args))
