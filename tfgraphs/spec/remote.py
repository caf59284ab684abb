"""Remote session targets: what --target names, the clusters tfgraphs starts, and the bytes that cross the wire."""

from dataclasses import dataclass

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.spec import network
from tfgraphs.spec.variants import VARIANTS

RETURN_KINDS = ("output", "sum")   # what a run returns to Python: the whole output, or its sum
LOOPBACK = "127.0.0.1"
# TensorFlow's gRPC channels accept messages up to INT32_MAX bytes: a GraphDef, a feed or a fetch must fit in one.
GRPC_MESSAGE_LIMIT = 2**31 - 1
TWO_TASK_JOBS = ("ps", "worker")


@dataclass(frozen=True)
class Target:
    """What --target asked for: in-process (""), servers tfgraphs starts (jobs), or an existing grpc:// URL."""

    spec: str = ""
    jobs: tuple = ()     # jobs of the servers to start on 127.0.0.1; empty for in-process or an existing server
    host: str = ""       # of an existing server
    port: int = 0

    @property
    def remote(self):
        return bool(self.spec)

    @property
    def starts_servers(self):
        return bool(self.jobs)


def parse_target(text):
    """A Target from `local`, `local:ps,worker` or `grpc://HOST:PORT`; UsageError otherwise."""
    if text in (None, ""):
        return Target()
    if text == "local":
        return Target("local", jobs=("local",))
    if text == "local:" + ",".join(TWO_TASK_JOBS):
        return Target(text, jobs=TWO_TASK_JOBS)
    if text.startswith("grpc://"):
        host, _, port = text[len("grpc://"):].rpartition(":")
        if host and port.isdigit() and 0 < int(port) < 65536:
            return Target(text, host=host, port=int(port))
    raise UsageError(f"--target {text!r} is not local, local:ps,worker or grpc://HOST:PORT")


def cluster_text(addresses):
    """`job=host:port;job=host:port` for {job: "host:port"}: the flag form of a ClusterSpec with one task per job."""
    return ";".join(f"{job}={address}" for job, address in addresses.items())


def parse_cluster(text):
    """{job: [host:port, ...]} from `job=host:port,host:port;job=...`; UsageError when malformed."""
    cluster = {}
    for part in filter(None, (p.strip() for p in text.split(";"))):
        job, _, tasks = part.partition("=")
        addresses = [a.strip() for a in tasks.split(",") if a.strip()]
        if not job.strip() or not addresses or any(not a.rpartition(":")[2].isdigit() for a in addresses):
            raise UsageError(f"--cluster part {part!r} is not JOB=HOST:PORT[,HOST:PORT...]")
        cluster[job.strip()] = addresses
    if not cluster:
        raise UsageError("--cluster names no job; give JOB=HOST:PORT[;JOB=HOST:PORT...]")
    return cluster


def bytes_fed_per_run(variant, batch, dtype):
    """Bytes sent with every run: X and W for a variant fed per run (as in the seed), else none."""
    if not VARIANTS[variant].fed_per_run:
        return 0
    w = network.FILTER * network.FILTER * network.CHANNELS * network.OUT_CHANNELS * np.dtype(dtype).itemsize
    return network.data_bytes(batch, dtype) + w


def bytes_fetched_per_run(batch, dtype, returns):
    """Bytes brought back by every run: the whole output, or one scalar sum."""
    item = np.dtype(dtype).itemsize
    return item if returns == "sum" else int(np.prod(network.output_shape(batch))) * item


def refusal(variant, batch, dtype, returns):
    """Why a remote run of `variant` cannot send its feed or fetch in one gRPC message, or None."""
    graph = VARIANTS[variant].copies_in_graph * network.data_bytes(batch, dtype)
    for what, size in (("GraphDef (sent to the server at the first run)", graph),
                       ("feed", bytes_fed_per_run(variant, batch, dtype)),
                       ("fetched output", bytes_fetched_per_run(batch, dtype, returns))):
        if size > GRPC_MESSAGE_LIMIT:
            return (f"{variant} remote: its {what} of {size:,} bytes per run is past TensorFlow's gRPC message "
                    f"limit of {GRPC_MESSAGE_LIMIT:,} bytes; use a smaller --batch"
                    + (" or --returns sum" if what == "fetched output" else ""))
    return None


def task_of(device):
    """The job and task of a device name: /job:ps/replica:0/task:0/device:CPU:0 -> ('ps', '0')."""
    parts = dict(p.split(":", 1) for p in (device or "").strip("/").split("/") if ":" in p)
    return parts.get("job"), parts.get("task")
