"""The options several commands share, each declared once: the seed network's, a remote session's, a user's graph's,
and where a run's results go. A command's Config takes them with Option.field(), changing only its own default."""

from tfgraphs.spec.network import DTYPES
from tfgraphs.spec.options import (REQUIRED, Names, OneOf, Option, Positive, Whole, feed_shapes, optional_path, path,
                                   switch, text, texts)
from tfgraphs.spec.owngraph import INT_HIGH
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.remote import RETURN_KINDS, TWO_TASK_JOBS, parse_target
from tfgraphs.spec.variants import VARIANTS

# The seed network.
BATCH = Option(6000, Whole(), "examples in X [N,32,32,1]",
               note="about 50 MB in float64; the seed used 60000, where the constant variant needs about 8-9 GB of RAM")
DTYPE = Option("float64", OneOf(DTYPES), "data type of X and W: " + ", ".join(DTYPES))
RUNS = Option(10, Whole(most=1_000_000), "timed runs after the first")
TRIALS = Option(1, Whole(most=1_000), "fresh workers per variant, in rotating order; the report shows the median")
FULL_TRIALS = Option(1, Whole(most=1_000), "how many of each variant's --trials workers measure every phase (later "
                     "runs, memory, sizes, TensorFlow's reports); the others measure up to the first run only")
SEED = Option(0, Whole(least=0), "seed of the data generator")
CHOSEN_VARIANTS = Option(tuple(VARIANTS), Names(tuple(VARIANTS), "variant"),
                         "comma-separated, from " + ", ".join(VARIANTS))
CHOSEN_PRESETS = Option(tuple(PRESETS), Names(tuple(PRESETS), "preset"), "comma-separated session presets: "
                        + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()), shown="all")


def later_runs_option(config):
    """The option whose workers run later runs: --full-trials where only the first trials run them, else --trials."""
    return "--full-trials" if config.full_trials < config.trials else "--trials"


def target(name, value):
    """The session target as tfgraphs names it: "" (in-process), local, local:ps,worker or grpc://HOST:PORT."""
    return parse_target(text(name, value or "")).spec


# A remote session.
TARGET = Option("", target, "also run every session through TensorFlow's gRPC runtime: local (a fresh server on "
                "127.0.0.1 per worker), local:ps,worker (a two-task cluster) or grpc://HOST:PORT (an existing "
                "server, e.g. from `tfgraphs server`)", shown="none, in-process only", metavar="WHERE")
BASELINE = Option(True, switch, "with --target, skip the in-process rows measured beside the remote ones")
RETURNS = Option(("output",), Names(RETURN_KINDS, "kind of result"), "what each run returns to Python: output (the whole "
                 "tensor), sum (one scalar, from a sum op added to the graph after the network, which constant "
                 "folding can precompute with it), or output,sum for both")
PLACE = Option("ps", OneOf(TWO_TASK_JOBS, prefix="data="), "with --target local:ps,worker, the job that holds the "
               "variable variant's X: data=ps or data=worker", shown="data=ps", metavar="data=JOB")
# The longest any wait may be: a timeout past a day is a slip of the keyboard, and a huge one overflows the clock.
DAY_S = 86_400.0
CONNECT_TIMEOUT = Option(10.0, Positive(most=DAY_S, unit=" s"), "give up on an unreachable grpc:// target after S "
                         "seconds", metavar="S")

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

# Seconds a worker with a remote session may take unless --timeout says otherwise: a server that accepts the
# connection and never answers would hang a remote run.
REMOTE_TIMEOUT_S = 600.0

# How a measuring run goes, and where its results are written (checked again, as paths, before any work).
FORCE = Option(False, switch, "run even when the memory estimate exceeds what is available")
TIMEOUT = Option(None, Positive(optional=True, most=DAY_S, unit=" s"), "kill a worker after S seconds (it becomes a "
                 "failed row)", shown=f"none, and {REMOTE_TIMEOUT_S:g} with a remote --target", metavar="S")
QUIET = Option(False, switch, "no progress lines on stderr")
FRESH_WORKERS = Option(False, switch, "start every worker as a fresh interpreter that imports TensorFlow itself, not "
                       "forked from one that imported it once (Linux forks; elsewhere every worker starts fresh)")
JSON = Option(None, optional_path, "also write every result to PATH as JSON (atomically)", metavar="PATH")
CSV = Option(None, optional_path, "also write one flat row per {lines} to PATH as CSV, times in s and sizes in bytes",
             metavar="PATH")
PLOT = Option(None, optional_path, "also draw the figure ({figure}) to PATH.png (needs matplotlib: pip install -e "
              "'.[viz]')", metavar="PATH.png")
RUNNING = {"force": FORCE, "timeout": TIMEOUT, "fresh_workers": FRESH_WORKERS, "quiet": QUIET, "json": JSON, "csv": CSV, "plot": PLOT}


def running(*names):
    """The running options by name, in RUNNING's order."""
    return {name: option for name, option in RUNNING.items() if name in names}


def running_values(options):
    """The values of RUNNING's options among a command's checked options: how it runs and what it writes."""
    return {name: value for name, value in options.items() if name in RUNNING}
