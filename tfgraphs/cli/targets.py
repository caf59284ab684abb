"""The flags compare and explain share for remote sessions, checked before anything is measured."""

from tfgraphs.cli.common import choose, positive_float
from tfgraphs.errors import UsageError
from tfgraphs.jobs import servers
from tfgraphs.jobs.remote import PLACES
from tfgraphs.spec.remote import FETCHES, parse_target


def add_remote_flags(p, beside=True):
    """--target, --no-baseline, --place and --connect-timeout; beside adds --fetch (compare's output|sum rows)."""
    p.add_argument("--target", default="", metavar="WHERE",
                   help="also run every session through TensorFlow's gRPC runtime: local (a fresh server on "
                        "127.0.0.1 per worker), local:ps,worker (a two-task cluster) or grpc://HOST:PORT "
                        "(an existing server, e.g. from `tfgraphs server`)")
    p.add_argument("--no-baseline", action="store_true",
                   help="with --target, skip the in-process rows measured beside the remote ones")
    if beside:
        p.add_argument("--fetch", default="output",
                       help="what each run brings back: output (the whole tensor), sum (one scalar, summed where "
                            "the network runs), or output,sum for both (default output)")
    p.add_argument("--place", default="data=ps", metavar="data=JOB",
                   help="with --target local:ps,worker, the job that holds the variable variant's X: data=ps "
                        "(default) or data=worker")
    p.add_argument("--connect-timeout", type=positive_float, default=10.0, metavar="S",
                   help="give up on an unreachable grpc:// target after S seconds (default 10)")


def remote_options(args, beside=True):
    """Config fields from the remote flags; UsageError for a bad one or an unreachable target, before any work."""
    target = parse_target(args.target)
    # explain's --fetch names a user graph's outputs (--graph); output|sum is compare's alone.
    fetches = choose(args.fetch, FETCHES, "fetch") if beside else ("output",)
    no_baseline = getattr(args, "no_baseline", False)
    job = args.place.partition("data=")[2] if args.place.startswith("data=") else ""
    if job not in PLACES:
        raise UsageError(f"--place {args.place!r} must be data=ps or data=worker")
    if args.place != "data=ps" and len(target.jobs) < 2:
        raise UsageError("--place needs --target local:ps,worker, the only cluster with a second task")
    if no_baseline and not target.remote:
        raise UsageError("--no-baseline needs --target: without one only in-process rows are measured")
    if target.remote and not target.starts_servers:
        servers.check_reachable(target, args.connect_timeout)
    return {"target": target.spec, "baseline": not no_baseline, "fetches": fetches, "place": job,
            "connect_timeout": args.connect_timeout}
