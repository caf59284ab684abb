"""The seed network, conv2d -> avg_pool -> ReLU on X [N,32,32,1]: its shapes, its data and a plain NumPy reference of
it; the variants (ways of getting X into the graph); the two 2 GiB limits and a worker's memory as arithmetic on its
sizes; remote session targets and the bytes that cross the wire; and the network as a user asks for it and as one
worker measures it: compare's Config, which explain's (with presets) and sweep's (at several batches) extend, the
SeedTask of one worker, and how progress names a task.

TensorFlow has two different 2 GiB limits that both concern embedded data:
- the tensor limit: a single tensor of 2 GiB or more is refused when the constant is made (make_tensor_proto);
- the GraphDef limit: a GraphDef of more than 2 GiB cannot be serialized (as_graph_def().SerializeToString(),
  write_graph, Saver's .meta file, a remote session). A local session never serializes its graph.
"""

import math
from dataclasses import asdict, dataclass, field, fields, replace
from typing import ClassVar

import numpy as np

from tfgraphs.errors import UsageError
from tfgraphs.processes import choice
from tfgraphs.spec import tflog
from tfgraphs.spec.options import (CHOSEN_PRESETS, DAY_S, FEWEST, FULL_TRIALS, MOST_EXAMPLES, PRESETS, RANK_SUM, RUNS,
                                   SEED, TRIALS, Names, OneOf, Option, Positive, Whole, batches, switch, text)


# Its shapes, its data, and a plain NumPy reference of it.
HEIGHT, WIDTH, CHANNELS = 32, 32, 1
FILTER, OUT_CHANNELS = 3, 6
POOL = 2
DTYPES = ("float64", "float32", "float16")

# Largest |TF - NumPy| accepted per dtype; outputs are O(1) for data in [0, 1).
TOLERANCE = {"float64": 1e-9, "float32": 1e-4, "float16": 3e-2}


def example_bytes(dtype):
    """Bytes of one input example [32, 32, 1] in this dtype."""
    return HEIGHT * WIDTH * CHANNELS * np.dtype(dtype).itemsize


def data_bytes(batch, dtype):
    """Bytes of the whole input X [batch, 32, 32, 1]."""
    return batch * example_bytes(dtype)


def conv_shape(batch):
    """Shape after conv2d 3x3, stride 1, VALID."""
    return (batch, HEIGHT - FILTER + 1, WIDTH - FILTER + 1, OUT_CHANNELS)


def output_shape(batch):
    """Shape after avg_pool 2x2, stride 2, VALID."""
    _, h, w, c = conv_shape(batch)
    return (batch, h // POOL, w // POOL, c)


def activation_bytes(batch, dtype):
    """Bytes of the conv, pool and relu outputs held during one run."""
    item = np.dtype(dtype).itemsize
    return (math.prod(conv_shape(batch)) + 2 * math.prod(output_shape(batch))) * item   # Python ints: no overflow


def output_bytes(batch, dtype):
    """Bytes of the network's output (the relu) at this batch."""
    return int(np.prod(output_shape(batch))) * np.dtype(dtype).itemsize


def make_data(batch, dtype, seed):
    """X [batch,32,32,1] and W [3,3,1,6], uniform in [0, 1) as in the seed."""
    rng = np.random.default_rng(seed)
    x = rng.random((batch, HEIGHT, WIDTH, CHANNELS), dtype=np.float64).astype(dtype, copy=False)
    w = rng.random((FILTER, FILTER, CHANNELS, OUT_CHANNELS), dtype=np.float64).astype(dtype, copy=False)
    return x, w


def reference_forward(x, w):
    """conv2d (VALID, stride 1) -> avg_pool 2x2/2 -> relu, in float64 NumPy."""
    x = x.astype(np.float64, copy=False)
    w = w.astype(np.float64, copy=False)
    n = x.shape[0]
    # Every 3x3 window as a view [n, oh, ow, C, kh, kw]; one tensordot with W [kh, kw, C, O] is the convolution.
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[:2], axis=(1, 2))
    conv = np.tensordot(windows, w, axes=([3, 4, 5], [2, 0, 1]))
    oh, ow = conv.shape[1:3]
    ph, pw = oh // POOL, ow // POOL
    pooled = conv[:, :ph * POOL, :pw * POOL, :].reshape(n, ph, POOL, pw, POOL, -1).mean(axis=(2, 4))
    return np.maximum(pooled, 0.0)


def check_close(error, dtype):
    """Raise ValueError when an output's largest |TF - NumPy| is past the dtype's tolerance (or not a number)."""
    tol = TOLERANCE[dtype]
    if not error <= tol:
        raise ValueError(f"output differs from the NumPy reference by {error:.3g} (tolerance {tol:g})")


def max_abs_error(x, w, *outputs, chunk=250):
    """Largest |y - reference| over the batch and every output y, the reference computed once, in chunks."""
    worst = 0.0
    for start in range(0, x.shape[0], chunk):
        ref = reference_forward(x[start:start + chunk], w)
        for y in outputs:
            worst = max(worst, float(np.max(np.abs(y[start:start + chunk].astype(np.float64) - ref))))
    return worst


def sum_error(x, w, total, chunk=1000):
    """|total - the reference output's sum| per output element, the reference summed in chunks."""
    ref = sum(float(reference_forward(x[start:start + chunk], w).sum()) for start in range(0, x.shape[0], chunk))
    return abs(float(total) - ref) / np.prod(output_shape(x.shape[0]))


# The ways of getting the same data into the graph, each with the properties explanations read from it.
@dataclass(frozen=True)
class Variant:
    """One input strategy: how many copies of X its GraphDef holds, and how X reaches the network."""

    name: str
    copies_in_graph: int
    peak_multiple: int       # rough peak memory besides activations, in units of X's bytes (seen on TF 2.21, CPU)
    fed_per_run: bool        # X crosses feed_dict on every run
    loaded_once: bool        # X is fed once into graph state (a variable, an iterator) and never again
    default: bool = True     # measured by compare unless --variants says otherwise

    @property
    def embeds_data(self):
        return self.copies_in_graph > 0


VARIANTS = {
    v.name: v
    for v in (
        Variant("numpy", copies_in_graph=1, peak_multiple=9, fed_per_run=False, loaded_once=False),
        Variant("constant", copies_in_graph=1, peak_multiple=9, fed_per_run=False, loaded_once=False),
        Variant("placeholder", copies_in_graph=0, peak_multiple=3, fed_per_run=True, loaded_once=False),
        Variant("variable", copies_in_graph=0, peak_multiple=3, fed_per_run=False, loaded_once=True),
        # The one-shot iterator keeps a second copy of X inside its dataset function (tests pin this).
        Variant("dataset-embedded", copies_in_graph=2, peak_multiple=18, fed_per_run=False, loaded_once=False,
                default=False),
        Variant("dataset-fed", copies_in_graph=0, peak_multiple=6, fed_per_run=False, loaded_once=True, default=False),
    )
}
COMPARED = tuple(name for name, v in VARIANTS.items() if v.default)


# The two 2 GiB limits and a worker's memory, as arithmetic on the network's sizes.
TENSOR_LIMIT = 1 << 31     # make_tensor_proto refuses nbytes >= 2**31 (tensor_util.py)
GRAPHDEF_LIMIT = 1 << 31   # protobuf cannot serialize a message of 2**31 bytes or more
TENSOR = "2 GiB single-tensor limit, checked when the constant is made"
GRAPHDEF = "2 GiB serialized-GraphDef limit, protobuf's, met wherever the graph is serialized whole"

# The classic constant folder keeps a folded result of at most this many bytes (ConstantFoldingOptions'
# max_constant_size_in_bytes in common_runtime/constant_folding.h); graph_optimizer.cc replaces it by
# OptimizerOptions.max_folded_constant_in_bytes when that is set above 0.
FOLDED_CONSTANT_BYTES = 10 * 2**20
FOLD_KNOB = "OptimizerOptions.max_folded_constant_in_bytes"

# TensorFlow's own resident memory once imported; the peak in units of X's bytes comes from each Variant.
TF_BASELINE_BYTES = 700 * 2**20


def largest_batch(bytes_per_example, overhead_bytes=0):
    """Largest N with N * bytes_per_example + overhead_bytes under 2 GiB."""
    return (GRAPHDEF_LIMIT - 1 - overhead_bytes) // bytes_per_example


def max_tensor_batch(dtype):
    """Largest batch whose X, as one tensor, TensorFlow accepts when the constant is made."""
    return (TENSOR_LIMIT - 1) // example_bytes(dtype)


def max_graphdef_batch(dtype, copies=1, overhead_bytes=0):
    """Largest batch whose GraphDef, holding X `copies` times plus overhead_bytes, can still be serialized."""
    return largest_batch(copies * example_bytes(dtype), overhead_bytes)


def max_embedded_batch(dtype, copies=1):
    """Largest batch X can be embedded `copies` times at: the lower of the tensor and the GraphDef limit.

    For the seed network the other nodes take under 4 KiB, less than one example in every dtype, so with one copy
    both limits fall on the same batch; with two copies (dataset-embedded) the GraphDef limit comes first.
    """
    return min(max_tensor_batch(dtype), max_graphdef_batch(dtype, copies))


def embedded_fits(batch, dtype, copies=1):
    """True when X at this batch can be embedded `copies` times and the GraphDef still serialized."""
    return batch <= max_embedded_batch(dtype, copies)


def limit_refusal(variant, batch, dtype, copies=None, label=None):
    """Why `variant` (or `label`, X held `copies` times) cannot be built at this batch, naming the limit; or None."""
    copies = VARIANTS[variant].copies_in_graph if copies is None else copies
    name = label or variant
    if not copies or embedded_fits(batch, dtype, copies):
        return None
    size = data_bytes(batch, dtype)
    if batch > max_tensor_batch(dtype):
        return (f"{name}: X would be one tensor of {size:,} bytes, past the {TENSOR}; the largest {dtype} batch "
                f"it accepts is {max_tensor_batch(dtype):,}")
    return (f"{name}: X would be {size:,} bytes, held {copies} times, past the {GRAPHDEF}, which this tool "
            f"needs to measure graph bytes; the largest {dtype} batch that fits is "
            f"{max_graphdef_batch(dtype, copies):,} (each tensor alone is under the single-tensor limit up to "
            f"{max_tensor_batch(dtype):,})")


def estimate_peak_bytes(variant, batch, dtype):
    """A rough upper estimate of one worker's peak memory, for refusing runs the machine cannot hold."""
    # Only a pre-flight guard against runs the machine cannot hold; every run reports its measured peak.
    multiple = VARIANTS[variant].peak_multiple
    return TF_BASELINE_BYTES + multiple * data_bytes(batch, dtype) + activation_bytes(batch, dtype)


# Remote session targets: what --target names, the clusters tfgraphs starts, and the bytes that cross the wire.
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


def parse_target(given):
    """A Target from `local`, `local:ps,worker` or `grpc://HOST:PORT`; UsageError otherwise."""
    if given in (None, ""):
        return Target()
    if given == "local":
        return Target("local", jobs=("local",))
    if given == "local:" + ",".join(TWO_TASK_JOBS):
        return Target(given, jobs=TWO_TASK_JOBS)
    if given.startswith("grpc://"):
        host, _, port = given[len("grpc://"):].rpartition(":")
        if host and port.isdigit() and 0 < int(port) < 65536:
            return Target(given, host=host, port=int(port))
    raise UsageError(f"--target {given!r} is not local, local:ps,worker or grpc://HOST:PORT")


def cluster_text(addresses):
    """`job=host:port;job=host:port` for {job: "host:port"}: the flag form of a ClusterSpec with one task per job."""
    return ";".join(f"{job}={address}" for job, address in addresses.items())


def parse_cluster(given):
    """{job: [host:port, ...]} from `job=host:port,host:port;job=...`; UsageError when malformed."""
    cluster = {}
    for part in filter(None, (p.strip() for p in given.split(";"))):
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
    w = FILTER * FILTER * CHANNELS * OUT_CHANNELS * np.dtype(dtype).itemsize
    return data_bytes(batch, dtype) + w


def bytes_fetched_per_run(batch, dtype, returns):
    """Bytes brought back by every run: the whole output, or one scalar sum."""
    item = np.dtype(dtype).itemsize
    return item if returns == "sum" else int(np.prod(output_shape(batch))) * item


def remote_refusal(variant, batch, dtype, returns):
    """Why a remote run of `variant` cannot send its feed or fetch in one gRPC message, or None."""
    graph = VARIANTS[variant].copies_in_graph * data_bytes(batch, dtype)
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


@dataclass(frozen=True)
class ServerTask:
    """One tf.distribute.Server of a cluster, serving until SIGTERM or SIGINT."""

    MODULE: ClassVar[str] = "tfgraphs.worker.server"
    cluster: str = field()   # job=host:port,...;job=... (cluster_text)
    job: str = field()
    task: int = 0


# The seed network's options, shared by the commands that run it.
BATCH = Option(6000, Whole(most=MOST_EXAMPLES), "examples in X [N,32,32,1]",
               note="about 50 MB in float64; the seed used 60000, where the constant variant needs about 8-9 GB of RAM")
DTYPE = Option("float64", OneOf(DTYPES), "data type of X and W: " + ", ".join(DTYPES))
CHOSEN_VARIANTS = Option(tuple(VARIANTS), Names(tuple(VARIANTS), "variant"),
                         "comma-separated, from " + ", ".join(VARIANTS))


def session_target(name, value):
    """The session target as tfgraphs names it: "" (in-process), local, local:ps,worker or grpc://HOST:PORT."""
    return parse_target(text(name, value or "")).spec


# A remote session.
TARGET = Option("", session_target, "also run every session through TensorFlow's gRPC runtime: local (a fresh server "
                "on 127.0.0.1 per worker), local:ps,worker (a two-task cluster) or grpc://HOST:PORT (an existing "
                "server, e.g. from `tfgraphs server`)", shown="none, in-process only", metavar="WHERE")
BASELINE = Option(True, switch, "with --target, skip the in-process rows measured beside the remote ones")
RETURNS = Option(("output",), Names(RETURN_KINDS, "kind of result"), "what each run returns to Python: output (the whole "
                 "tensor), sum (one scalar, from a sum op added to the graph after the network, which constant "
                 "folding can precompute with it), or output,sum for both")
PLACE = Option("ps", OneOf(TWO_TASK_JOBS, prefix="data="), "with --target local:ps,worker, the job that holds the "
               "variable variant's X: data=ps or data=worker", shown="data=ps", metavar="data=JOB")
CONNECT_TIMEOUT = Option(10.0, Positive(most=DAY_S, unit=" s"), "give up on an unreachable grpc:// target after S "
                         "seconds", metavar="S")


# The seed network as a user asks for it and as one worker measures it.
EXPLAINED = ("constant", "placeholder", "variable")   # explain's variants unless --variants says otherwise


@dataclass(frozen=True)
class SeedTask:
    """One measurement of the seed network: `timed` phases, the phases up to the `first-run` alone, `traced` runs,
    the 2 GiB tensor `limit` probe, or `single-thread` runs (one intra-op and one inter-op thread, as the classic
    constant folder evaluates)."""

    MODULE: ClassVar[str] = "tfgraphs.worker.network"
    variant: str = choice(VARIANTS)
    batch: int = field()
    dtype: str = field(default="float64", metadata={"choices": DTYPES})
    runs: int = 10
    seed: int = 0
    preset: str = field(default="default", metadata={"choices": tuple(PRESETS)})
    mode: str = field(default="timed", metadata={"choices": ("timed", "first-run", "traced", "limit",
                                                             "single-thread")})
    trace_dir: str | None = None
    tensorboard_dir: str | None = None
    returns: str = field(default="output", metadata={"choices": RETURN_KINDS})
    target: str | None = None           # a grpc:// session target; None runs in-process
    network_device: str | None = None   # e.g. /job:worker/task:0 in a two-task cluster
    data_device: str | None = None      # where the variable variant's X lives, e.g. /job:ps/task:0
    headline_runs: int = 0              # later runs its headline() task times after the first run

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.STAGES_ENV if self.mode == "traced" else None

    def headline(self):
        """This task measuring the phases up to its first run, then its headline_runs later runs (a timed task; any
        other mode as it is)."""
        return replace(self, mode="first-run", runs=self.headline_runs) if self.mode == "timed" else self

    def writes(self):
        """(trace files, TensorBoard folder) the task writes; a remote run's traces sit beside the in-process ones."""
        stem = f"{self.variant}.{self.preset}" + (".remote" if self.target else "")
        return tflog.traced_writes(self, stem, self.variant)


@dataclass(frozen=True)
class Config:
    """What the user asked of the seed network: its data, how many runs and fresh workers, which variants, where."""

    batch: int = BATCH.field()
    dtype: str = DTYPE.field()
    # Every trial times its later runs, so later runs are judged one median a worker over every worker: 4 workers of
    # 3 later runs cost about one worker of 10, and give the judge 4 a side.
    runs: int = RUNS.field(default=3)
    # A rank test tells two variants' first runs apart from 4 workers a side: the default judges its headline.
    trials: int = TRIALS.field(default=FEWEST[RANK_SUM])
    full_trials: int = FULL_TRIALS.field()
    seed: int = SEED.field()
    variants: tuple = CHOSEN_VARIANTS.field(default=COMPARED)
    target: str = TARGET.field()                      # "" in-process only
    baseline: bool = BASELINE.field()                 # with a target, measure the in-process rows too
    returns: tuple = RETURNS.field()
    place: str = PLACE.field()                        # where the variable lives in local:ps,worker
    connect_timeout: float = CONNECT_TIMEOUT.field()
    # How the run was made, not an option: every trial times `runs` later runs; False: only the first full_trials
    # do (a document without the key).
    later_every_trial: bool = field(default=True, metadata={"format": "later runs in every trial"})

    def to_dict(self):
        d = {**asdict(self), "variants": list(self.variants), "returns": list(self.returns)}
        if not self.later_every_trial:
            d.pop("later_every_trial")   # absent reads as False
        if not self.target and self.returns == ("output",):
            # An in-process run's document leaves the remote settings out.
            for key in ("target", "baseline", "returns", "place", "connect_timeout"):
                d.pop(key)
        return d

    def task(self, variant, **how):
        """The worker task measuring `variant`; how = preset, mode, output folders, fetch and target."""
        return SeedTask(variant=variant, batch=self.batch, dtype=self.dtype, runs=self.runs, seed=self.seed,
                        headline_runs=self.runs if self.later_every_trial else 0, **how)

    def placements(self):
        """(target, fetch) of every row per variant: in-process first (target None), then remote."""
        where = ([None] if self.baseline or not self.target else []) + ([self.target] if self.target else [])
        return [(t, r) for t in where for r in self.returns]


@dataclass(frozen=True)
class ExplainConfig(Config):
    """The seed network's config, plus the presets to try."""

    variants: tuple = CHOSEN_VARIANTS.field(default=EXPLAINED)
    presets: tuple = CHOSEN_PRESETS.field()
    runs: int = RUNS.field()
    # Four first runs a side is the least at which the rank test can tell two presets apart: explain's headline
    # claims are such differences.
    trials: int = TRIALS.field(default=FEWEST[RANK_SUM])

    def __post_init__(self):
        # Every explain trial measures every phase, so each is a full one, whatever full_trials was given as.
        object.__setattr__(self, "full_trials", self.trials)

    def to_dict(self):
        # Every explain trial measures every phase: compare's full_trials and later_every_trial say nothing here.
        return {**{k: v for k, v in super().to_dict().items() if k not in ("full_trials", "later_every_trial")},
                "presets": list(self.presets)}


# The seed network's settings a sweep does not take: it sets the batch, and runs in-process only.
UNSWEPT = ("batch", "target", "baseline", "returns", "place", "connect_timeout")


@dataclass(frozen=True)
class SweepConfig(Config):
    """The seed network's config at each of several batches."""

    batches: tuple = Option((500, 1000, 2000, 4000), batches, "comma-separated batches, at least two",
                            metavar="N,N,...").field()
    # A median per worker is enough for a point's later run; growth between points is judged on one sample per fresh
    # worker, so the judge tells two points' first runs apart from 4 workers a point, the default; one of them
    # measures every phase (--full-trials), the others up to the first run.
    runs: int = RUNS.field(default=5)
    trials: int = TRIALS.field(default=FEWEST[RANK_SUM])
    full_trials: int = FULL_TRIALS.field()
    seed: int = SEED.field()
    variants: tuple = CHOSEN_VARIANTS.field(default=("constant", "placeholder"))
    later_every_trial: bool = field(default=False, metadata={"format": "later runs in the full trials"})

    def to_dict(self):
        kept = ("dtype", "runs", "trials", "full_trials", "seed", "variants")
        return {"batches": list(self.batches), **{k: v for k, v in super().to_dict().items() if k in kept}}

    def at(self, batch):
        """The seed network's config for one batch of the sweep."""
        return Config(**{**{f.name: getattr(self, f.name) for f in fields(Config)}, "batch": batch})


def task_label(task):
    """How progress names a seed task: its variant, then its preset, mode, fetch and target when not the default."""
    return (task.variant + (f" [{task.preset}]" if task.preset != "default" else "")
            + (f" {task.mode}" if task.mode != "timed" else "")
            + (f" returns {task.returns}" if task.returns != "output" else "")
            + (f" on {task.target}" if task.target else ""))
