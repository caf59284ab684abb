"""One tf.distribute.Server: `python -m tfgraphs.worker.server --cluster JOB=HOST:PORT --job JOB --task I`.

It prints one JSON line {"status": "ready", "target": ..., "pid": ...} on stdout once serving, then serves until
SIGTERM or SIGINT, and exits 0.
"""

import json
import os
import signal
import sys
import threading

from tfgraphs.errors import UsageError
from tfgraphs.processes import from_argv
from tfgraphs.spec.network import ServerTask, parse_cluster
from tfgraphs.tfimport import import_tensorflow


def serve(task, out=sys.stdout):
    """Start the server, say it is ready, and block until asked to stop; return the exit status."""
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    cluster = parse_cluster(task.cluster)
    if task.job not in cluster or not 0 <= task.task < len(cluster[task.job]):
        raise UsageError(f"task {task.task} of job {task.job!r} is not in the cluster {task.cluster!r}")
    tf = import_tensorflow()
    server = tf.distribute.Server(tf.train.ClusterSpec(cluster), job_name=task.job, task_index=task.task,
                                  protocol="grpc", start=True)
    print(json.dumps({"status": "ready", "target": server.target, "pid": os.getpid()}), file=out, flush=True)
    # TensorFlow has no way to stop a gRPC server it started; the process ends, and the server with it.
    while not stop.wait(0.5):
        pass
    return 0


def main(argv=None):
    """Serve the task given as flags until stopped, then exit without interpreter teardown."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    task = from_argv(ServerTask, argv)
    try:
        code = serve(task)
    except UsageError as exc:
        print(f"server: {exc}", file=sys.stderr)
        code = 2
    sys.stdout.flush()
    # Skip interpreter teardown: destroying a started gRPC server is not supported and may hang or abort.
    os._exit(code)


if __name__ == "__main__":
    main()
