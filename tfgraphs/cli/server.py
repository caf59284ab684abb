"""`tfgraphs server`: one tf.distribute.Server for a lab or a second machine, until Ctrl-C or SIGTERM."""

import json
import subprocess
import sys

from tfgraphs.cli.common import positive_int, seed
from tfgraphs.errors import UsageError
from tfgraphs.jobs import servers
from tfgraphs.spec.remote import LOOPBACK, cluster_text, parse_cluster
from tfgraphs.spec.tasks import ServerTask, to_argv


def add_parser(sub):
    s = sub.add_parser("server", help="start a TensorFlow gRPC server and print its target",
                       description="Start one tf.distribute.Server, print the grpc:// target to give "
                                   "`compare --target`, and serve until Ctrl-C or SIGTERM.")
    s.add_argument("--port", type=positive_int, help="port on 127.0.0.1 (default: a free one)")
    s.add_argument("--cluster", metavar="SPEC",
                   help="the whole cluster, JOB=HOST:PORT[,HOST:PORT...][;JOB=...], e.g. "
                        "ps=10.0.0.1:2222;worker=10.0.0.2:2222 (instead of --port)")
    s.add_argument("--job", default="local", help="this server's job in --cluster (default local)")
    s.add_argument("--task", type=seed, default=0, help="this server's task index in its job (default 0)")
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


def run(args):
    """Run the server in its own process, print its target, and end it by its pid on Ctrl-C or SIGTERM."""
    proc = subprocess.Popen([sys.executable, *to_argv(task(args))], stdin=subprocess.DEVNULL,
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
