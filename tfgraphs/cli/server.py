"""`tfgraphs server`: one tf.distribute.Server for a lab or a second machine, until Ctrl-C or SIGTERM."""

import json
import socket
import subprocess
import sys

from tfgraphs import children
from tfgraphs.cli import typed
from tfgraphs.errors import UsageError
from tfgraphs.jobs import servers
from tfgraphs.spec.remote import LOOPBACK, cluster_text, parse_cluster
from tfgraphs.spec.options import Whole
from tfgraphs.spec.protocol import to_argv
from tfgraphs.spec.tasks import ServerTask


def add_parser(sub):
    """Add `server` to the subcommands."""
    s = sub.add_parser("server", help="start a TensorFlow gRPC server and print its target",
                       description="Start one tf.distribute.Server, print the grpc:// target to give "
                                   "`compare --target`, and serve until Ctrl-C or SIGTERM. TensorFlow's server "
                                   "listens on every interface of this machine, not only 127.0.0.1: anyone who "
                                   "reaches the port can run graphs in it. `compare --target local` instead starts "
                                   "its servers in a network namespace of their own, reachable only from inside.")
    s.add_argument("--port", type=typed(Whole(most=65535), "port"), help="the port to listen on, on every interface; the target printed is "
                                             "127.0.0.1:PORT (default: a free one)")
    s.add_argument("--cluster", metavar="SPEC",
                   help="the whole cluster, JOB=HOST:PORT[,HOST:PORT...][;JOB=...], e.g. "
                        "ps=10.0.0.1:2222;worker=10.0.0.2:2222 (instead of --port)")
    s.add_argument("--job", default="local", help="this server's job in --cluster (default local)")
    s.add_argument("--task", type=typed(Whole(least=0), "task"), default=0, help="this server's task index in its job (default 0)")
    s.set_defaults(func=run)


def task(args):
    """The server task the flags ask for; UsageError for a cluster that does not hold --job and --task."""
    if args.cluster and args.port:
        raise UsageError("give --port or --cluster, not both")
    if not args.cluster:
        return ServerTask(cluster=cluster_text({args.job: f"{LOOPBACK}:{args.port or servers.free_port()}"}),
                          job=args.job, task=args.task)
    cluster = parse_cluster(args.cluster)
    if args.job not in cluster or args.task >= len(cluster[args.job]):
        raise UsageError(f"--job {args.job} --task {args.task} is not in --cluster {args.cluster}")
    return ServerTask(cluster=args.cluster, job=args.job, task=args.task)


def _free(cluster, job, index):
    """Refuse, in one line, a port of this task that something on this machine already listens on."""
    address = parse_cluster(cluster)[job][index]
    port_number = int(address.rsplit(":", 1)[1])
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("", port_number))
        except OSError as exc:
            raise UsageError(f"port {port_number} cannot be served: {exc.strerror}") from None
    return port_number


def run(args):
    """Run the server in its own process, print its target, and end it by its pid on Ctrl-C or SIGTERM."""
    served = task(args)
    port_number = _free(served.cluster, served.job, served.task)
    print(f"tfgraphs server: TensorFlow listens on every interface (0.0.0.0:{port_number}), not only {LOOPBACK}; "
          f"for servers only this machine can reach, use `compare --target local`", file=sys.stderr, flush=True)
    proc = children.start([sys.executable, *to_argv(served)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line:
            return proc.wait() or 1
        print(f"serving {json.loads(line)['target']} (pid {proc.pid}); Ctrl-C stops it", flush=True)
        proc.wait()
        return proc.returncode
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 0
    finally:
        servers.stop([proc])
