"""The flags compare and explain share for remote sessions."""

from tfgraphs.cli.common import OMITTED, option


def add_remote_flags(p, func, returns=True):
    """--target, --no-baseline, --place and --connect-timeout; returns adds compare's --returns output|sum."""
    p.add_argument("--target", default=OMITTED, metavar="WHERE",
                   help="also run every session through TensorFlow's gRPC runtime: local (a fresh server on "
                        "127.0.0.1 per worker), local:ps,worker (a two-task cluster) or grpc://HOST:PORT "
                        "(an existing server, e.g. from `tfgraphs server`)")
    p.add_argument("--no-baseline", dest="baseline", action="store_false", default=OMITTED,
                   help="with --target, skip the in-process rows measured beside the remote ones")
    if returns:
        option(p, func, "returns", "what each run returns to Python: output (the whole tensor), sum (one scalar, "
                                   "summed where the network runs), or output,sum for both")
    option(p, func, "place", "with --target local:ps,worker, the job that holds the variable variant's X: data=ps "
                             "or data=worker", metavar="data=JOB")
    option(p, func, "connect_timeout", "give up on an unreachable grpc:// target after S seconds", metavar="S")
