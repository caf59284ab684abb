"""The flags a user's graph takes: --tag, --signature, --feed, --fetch and --int-high."""

from tfgraphs.cli.common import OMITTED, option


def add_graph_flags(p, func):
    """How to read, feed and fetch a user's graph."""
    option(p, func, "tag", "SavedModel: the meta graph's tag")
    option(p, func, "signature", "SavedModel: the signature giving inputs and outputs")
    p.add_argument("--feed", action="append", default=OMITTED, metavar="NAME=D1,D2,...",
                   help="the full shape of an input with unknown dimensions (repeatable)")
    p.add_argument("--fetch", action="append", default=OMITTED, metavar="NAME",
                   help="a node or tensor to run (repeatable); default: the signature's outputs, else every node "
                        "nothing consumes except NoOps and assignments")
    option(p, func, "int_high", "integer inputs are drawn from [0, INT_HIGH)", metavar="INT_HIGH")
