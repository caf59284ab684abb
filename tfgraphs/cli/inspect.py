"""`tfgraphs inspect FILE`: what a GraphDef or SavedModel holds, without running it."""

import sys

from tfgraphs.cli.common import add_output_flags, check_outputs, positive_int, text_width
from tfgraphs.fileio import write_doc
from tfgraphs.jobs import inspect
from tfgraphs.render import render


def add_parser(sub):
    i = sub.add_parser("inspect", help="what is inside a GraphDef or SavedModel file (nothing is run)",
                       description="Report a GraphDef's size, node count, op types, largest Const nodes and "
                                   "headroom to 2 GiB. The graph is only parsed: never imported or executed.")
    i.add_argument("path", help="a GraphDef (.pb binary, .pbtxt text), a SavedModel directory or its saved_model.pb")
    i.add_argument("--top", type=positive_int, default=10, help="largest Const nodes to list (default 10)")
    add_output_flags(i, measuring=False)
    i.add_argument("--strip-constants", metavar="OUT.pbtxt",
                   help="write a text copy of the graph with every tensor's contents removed (dtype and shape kept)")
    i.set_defaults(func=run)


def run(args):
    check_outputs(args, args.strip_constants)
    config = inspect.Config(args.path, top=args.top, json=args.json, strip_constants=args.strip_constants)
    inspect.plan(config)
    found = inspect.run(config)
    if args.json:
        write_doc(found.to_dict(), args.json)
    sys.stdout.write(render(found, args.format, text_width(args)))
    return 0
