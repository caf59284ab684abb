"""The flags a user's graph needs (--tag, --signature, --feed, --fetch, --int-high) and `explain --graph`."""

import argparse
import re

from tfgraphs.cli.common import choose, positive_int, run_job
from tfgraphs.jobs import owngraph
from tfgraphs.spec.owngraph import INT_HIGH
from tfgraphs.spec.presets import PRESETS

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b|b)?\s*", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def byte_size(text):
    """argparse type: bytes, as a number with an optional unit (B, kB, MB, GB, KiB, MiB, GiB); at least 1."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (try 1048576, 512KiB or 2MB)")
    size = int(float(match.group(1)) * _UNITS[(match.group(2) or "b").lower()])
    if size < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1 byte")
    return size


def feed_dims(text):
    """argparse type: NAME=D1,D2,... with each dimension a whole number >= 1."""
    name, _, dims = text.partition("=")
    try:
        shape = tuple(int(d) for d in dims.split(",")) if dims.strip() else None
    except ValueError:
        shape = None
    if not name.strip() or shape is None or any(d < 1 for d in shape):
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=D1,D2,... with whole dimensions >= 1")
    return name.strip(), shape


def add_graph_flags(p):
    """How to read, feed and fetch a user's graph."""
    p.add_argument("--tag", default="serve", help="SavedModel: the meta graph's tag (default serve)")
    p.add_argument("--signature", default="serving_default",
                   help="SavedModel: the signature giving inputs and outputs (default serving_default)")
    p.add_argument("--feed", action="append", type=feed_dims, default=[], metavar="NAME=D1,D2,...",
                   help="the full shape of an input with unknown dimensions (repeatable)")
    p.add_argument("--fetch", action="append", default=[], metavar="NAME",
                   help="a node or tensor to run (repeatable); default: the signature's outputs, else every node "
                        "nothing consumes except NoOps and assignments")
    p.add_argument("--int-high", type=positive_int, default=INT_HIGH,
                   help=f"integer inputs are drawn from [0, INT_HIGH) (default {INT_HIGH})")


def graph_config(args, job, path, **more):
    """The job's Config for the graph at path, from the shared graph flags."""
    return job.Config(path=path, runs=args.runs, seed=args.seed, tag=args.tag, signature=args.signature,
                      dims=tuple(args.feed), fetches=tuple(args.fetch), int_high=args.int_high, **more)


def explain_graph(args):
    """`explain --graph PATH`: the same presets, traces and TensorBoard graphs, on the user's graph."""
    config = graph_config(args, owngraph, args.graph, trials=args.trials,
                          presets=choose(args.presets, list(PRESETS), "preset"))
    return run_job(args, owngraph, config, trace_dir=args.trace, tensorboard_dir=args.tensorboard)
