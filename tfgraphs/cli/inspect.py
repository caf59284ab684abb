"""`tfgraphs inspect FILE`: what a GraphDef or SavedModel holds, without running it."""

from tfgraphs.api.inspect import inspect
from tfgraphs.cli.common import add_options, run_api


def add_parser(sub, command):
    i = sub.add_parser("inspect", help=command.summary,
                       description="Report a GraphDef's size, node count, op types, largest Const nodes and "
                                   "headroom to 2 GiB. The graph is only parsed: never imported or executed.")
    add_options(i, inspect, command)
    i.set_defaults(func=lambda args: run_api(inspect, args))
