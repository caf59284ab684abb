"""A user's own graph and script as tfgraphs takes them: the options that read, feed and fetch a graph; the tasks of
the workers that measure it and rewrite it; its feeds and fetches as flags, their seeded data, and output tolerances;
and what `tfgraphs watch` can diagnose in a script, each diagnosis with its remedy and the lesson or lab that teaches
it."""

import os
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from tfgraphs.spec import tflog
from tfgraphs.spec.options import PRESETS, REQUIRED, Option, Whole, feed_shapes, path, text, texts

# What `--int-high` defaults to: integer inputs are drawn from [0, 2), valid ids for any table of two or more rows.
INT_HIGH = 2
# unembed moves the Consts of at least this many bytes unless --min-bytes says otherwise.
MIN_BYTES = 1 << 20
# Largest |original - rewritten| accepted, relative to max(1, largest |original output|); exact for non-floats.
TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}


@dataclass(frozen=True)
class Feed:
    """One input: the tensor fed, its dtype name and its shape (every dimension known when it is to be fed)."""

    tensor: str
    dtype: str
    shape: tuple

    def encode(self):
        return f"{self.tensor}={self.dtype}:{','.join(map(str, self.shape))}"

    @classmethod
    def decode(cls, text):
        tensor, spec = text.rsplit("=", 1)
        dtype, dims = spec.split(":", 1)
        return cls(tensor, dtype, tuple(int(d) for d in dims.split(",") if d))


def graph_name(path):
    """How rows, traces and TensorBoard name the graph at path: its file or folder name."""
    return os.path.basename(os.path.normpath(path))


def encode_feeds(feeds):
    """Feeds as one flag value: tensor=dtype:d1,d2;... (node names hold none of = : ;)."""
    return ";".join(f.encode() for f in feeds)


def decode_feeds(text):
    return tuple(Feed.decode(t) for t in text.split(";") if t)


def encode_fetches(fetches):
    return ",".join(fetches)


def decode_fetches(text):
    return tuple(t for t in text.split(",") if t)


def feed_data(feeds, seed, int_high=INT_HIGH):
    """{tensor: array} of seeded random data: floats in [0, 1), integers in [0, int_high), booleans either way."""
    rng = np.random.default_rng(seed)
    data = {}
    for f in feeds:
        dtype = np.dtype(f.dtype)
        if dtype.kind == "f":
            data[f.tensor] = rng.random(f.shape).astype(dtype)
        elif dtype.kind in "iu":
            data[f.tensor] = rng.integers(0, int_high, size=f.shape).astype(dtype)
        elif dtype.kind == "b":
            data[f.tensor] = rng.integers(0, 2, size=f.shape).astype(bool)
        else:
            raise ValueError(f"cannot make data of dtype {f.dtype} for {f.tensor}")
    return data


def tolerance(dtype, reference):
    """The largest absolute difference accepted for outputs of this dtype against the reference array."""
    scale = max(1.0, float(np.max(np.abs(reference)))) if np.size(reference) else 1.0
    return TOLERANCE.get(str(dtype), 0.0) * scale


def max_abs_difference(a, b):
    """Largest |a - b| as a float; inf when the shapes differ."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


# A user's graph: how to read, feed and fetch it.
GRAPH_PATH = Option(REQUIRED, path, "a GraphDef (.pb binary, .pbtxt text) or a SavedModel folder", keyword="path",
                    positional=True)
TAG = Option("serve", text, "SavedModel: the meta graph's tag")
SIGNATURE = Option("serving_default", text, "SavedModel: the signature giving inputs and outputs")
FEED = Option((), feed_shapes, "the full shape of an input with unknown dimensions", keyword="feed",
              metavar="NAME=D1,D2,...", repeat=True, shown="none")
FETCH = Option((), texts, "a node or tensor to run", keyword="fetch", metavar="NAME", repeat=True,
               shown="the signature's outputs, else every node nothing consumes except NoOps and assignments")
INT_HIGH_OPTION = Option(INT_HIGH, Whole(most=2**63 - 1), "integer inputs are drawn from [0, INT_HIGH)",
                         keyword="int_high", metavar="INT_HIGH")


# The tasks of the workers that measure a user's graph and rewrite it.
@dataclass(frozen=True)
class GraphTask:
    """One measurement of a user's graph: `timed` phases (outputs saved when asked) or `traced` runs."""

    MODULE: ClassVar[str] = "tfgraphs.worker.owngraph"
    path: str = field()
    name: str = field()             # how rows, traces and TensorBoard name the graph
    fetches: str = field()          # encode_fetches
    feeds: str = ""                 # encode_feeds
    tag: str | None = None          # set: path is a SavedModel, loaded with this tag
    runs: int = 10
    seed: int = 0
    int_high: int = 2
    preset: str = field(default="default", metadata={"choices": tuple(PRESETS)})
    mode: str = field(default="timed", metadata={"choices": ("timed", "traced")})
    outputs_path: str | None = None  # timed: save the first run's outputs here (.npz)
    trace_dir: str | None = None
    tensorboard_dir: str | None = None

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.STAGES_ENV if self.mode == "traced" else None

    def writes(self):
        """(trace files, TensorBoard folder) the task writes, named after the graph."""
        return tflog.traced_writes(self, f"{self.name}.{self.preset}", self.name)


@dataclass(frozen=True)
class UnembedTask:
    """Rewrite a graph's large Consts into variables, writing a SavedModel to a new folder."""

    MODULE: ClassVar[str] = "tfgraphs.worker.unembed"
    path: str = field()
    out: str = field()
    min_bytes: int = field()
    fetches: str = field()
    signature: str = field()        # the signature's name in the new SavedModel
    feeds: str = ""
    tag: str | None = None          # set: path is a SavedModel, read with this tag


# What `tfgraphs watch` can diagnose in a user's script.
WATCH_MODULE = "tfgraphs.worker.watch"   # the worker that runs the script with the hooks on
WATCHED_BYTES = MIN_BYTES                # the smallest Const or feed named unless --min-bytes says otherwise


@dataclass(frozen=True)
class Diagnosis:
    """One diagnosis of a watched script: its name in the JSON, how to remedy it, and where the course teaches it."""

    name: str
    remedy: str
    lesson: str


DIAGNOSES = {d.name: d for d in (
    Diagnosis("embedded-constant",
              "feed the array through a tf.compat.v1.placeholder, or load it once into a variable whose initial value "
              "is a placeholder fed once (var.load(array, sess)); tf.Variable(array) embeds it again",
              "lesson 1 (tfgraphs compare), labs 1 and 7"),
    Diagnosis("repeated-feed",
              "load the array once into a variable whose initial value is a placeholder fed once "
              "(not tf.Variable(array), which embeds it)", "lesson 1 (tfgraphs compare: the variable variant), lab 7"),
    Diagnosis("graph-growth", "create the ops once, before the loop at this line, and call graph.finalize() so that a "
              "new op raises", "lesson 5 (tfgraphs pitfalls --lessons graph-growth), labs 6 and 7"),
    Diagnosis("new-signature",
              "fetch one set of names at this line, or run each set once before the loop that is timed (each new set "
              "of feeds and fetches builds its executors once per session; make_callable does not avoid that)",
              "lesson 5 (tfgraphs pitfalls --lessons executor-cache)"),
    Diagnosis("retracing",
              "give the tf.function an input_signature with None dimensions, so new shapes reuse one trace "
              "(reduce_retracing=True generalises only after a retrace)", "lesson 4 (tfgraphs shapes), lab 4"),
    Diagnosis("session-per-pass",
              "make the session once, before the loop, and run it on every pass, so that only its first run pays "
              "what each new session's first run paid here",
              "lesson 5 (tfgraphs pitfalls --lessons executor-cache)"),
)}


@dataclass(frozen=True)
class Cause:
    """What ops made in a loop were, told by their op types (worker.watched.cause_of), and its remedy."""

    name: str
    what: str
    remedy: str


CAUSES = {c.name: c for c in (
    Cause("saver", "a tf.compat.v1.train.Saver's save and restore ops",
          "make the Saver once, before the loop, and call saver.save(sess, path) in it"),
    Cause("summary", "summary ops",
          "make each summary op and tf.compat.v1.summary.merge_all() once, before the loop, and run the merged op in "
          "it"),
    Cause("dataset", "a tf.data Dataset and its iterator",
          "build the Dataset and its iterator once, before the loop, and run the get_next() tensor in it"),
    Cause("initializer", "a variables initializer (a NoOp grouping the variables' assignments)",
          "make tf.compat.v1.global_variables_initializer() once and run it once, before the loop"),
)}
