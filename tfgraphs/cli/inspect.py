"""`tfgraphs inspect FILE`: what a GraphDef or SavedModel holds, without running it."""

from tfgraphs.api.inspect import inspect
from tfgraphs.cli.common import OMITTED, add_output_flags, option, run_api


def add_parser(sub, command):
    i = sub.add_parser("inspect", help=command.summary,
                       description="Report a GraphDef's size, node count, op types, largest Const nodes and "
                                   "headroom to 2 GiB. The graph is only parsed: never imported or executed.")
    i.add_argument("path", help="a GraphDef (.pb binary, .pbtxt text), a SavedModel directory or its saved_model.pb")
    option(i, inspect, "top", "largest Const nodes to list")
    add_output_flags(i, measuring=False)
    i.add_argument("--strip-constants", metavar="OUT.pbtxt", default=OMITTED,
                   help="write a text copy of the graph with every tensor's contents removed (dtype and shape kept)")
    i.set_defaults(func=lambda args: run_api(inspect, args))
