"""What tfgraphs.explain() does beyond its Config: trace and graph folders, and a user's graph in place of the seed's."""

from tfgraphs.api.outputs import writes_into
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain as job
from tfgraphs.jobs import owngraph
from tfgraphs.spec.common import RUNNING, running_values
from tfgraphs.spec.options import Option, config_of, optional_path
from tfgraphs.spec.seed import ExplainConfig

# Beside the Config: where traces go, and a user's graph in place of the built-in network.
FOLDERS = {
    "trace": Option(None, optional_path, "write a Chrome trace (Perfetto, chrome://tracing) of the first and second "
                    "run of each variant x preset to DIR", metavar="DIR"),
    "tensorboard": Option(None, optional_path, "write each variant's graph for `tensorboard --logdir DIR`",
                          metavar="DIR"),
    "graph": Option(None, optional_path, "explain this .pb/.pbtxt GraphDef or SavedModel folder instead of the "
                    "built-in network (--batch, --dtype, --variants and --target do not apply)", metavar="PATH"),
}
BESIDE = (FOLDERS, owngraph.Config, RUNNING)
WITHOUT = ("returns", "path", "full_trials")   # owngraph's graph is --graph; every explain trial measures every phase
SEED_ONLY = ("batch", "dtype", "variants", "target")   # settings of the built-in network


def writes(options):
    """The Outputs of --trace and --tensorboard: each folder, and every trace file and graph folder in it."""
    if options["trace"] is None and options["tensorboard"] is None:
        return []
    if options["graph"] is None:
        traces, boards = job.writes(config_of(ExplainConfig, options), options["trace"], options["tensorboard"])
    else:
        traces, boards = owngraph.writes(config_of(owngraph.Config, {**options, "path": options["graph"]}),
                                         options["trace"], options["tensorboard"])
    return ((writes_into("trace", options["trace"], files=traces) if options["trace"] else [])
            + (writes_into("tensorboard", options["tensorboard"], wholes=boards) if options["tensorboard"] else []))


def explained(command, **options):
    """Run each variant, or the graph at `graph`, under the presets, with its traces and graphs written."""
    run = {**running_values(options), "trace_dir": options["trace"], "tensorboard_dir": options["tensorboard"]}
    if options["graph"] is None:
        return command.measure(job, config_of(ExplainConfig, options), **run)
    for name in SEED_ONLY:
        if options[name] != getattr(ExplainConfig, name):
            raise UsageError(f"--{name} sets the built-in network; it does not apply with --graph")
    return command.measure(owngraph, config_of(owngraph.Config, {**options, "path": options["graph"]}), **run)
