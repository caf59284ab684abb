"""tfgraphs.explain(): what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.keywords import takes
from tfgraphs.api.outputs import output_dir
from tfgraphs.api.running import check_outputs, measure, running_options
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain as job
from tfgraphs.jobs import owngraph
from tfgraphs.spec.common import RUNNING
from tfgraphs.spec.options import Option, config_of, optional_path

# Beside the Config: where traces go, and a user's graph in place of the built-in network.
BESIDE = {
    "trace": Option(None, optional_path, "write a Chrome trace (Perfetto, chrome://tracing) of the first and second "
                    "run of each variant x preset to DIR", metavar="DIR"),
    "tensorboard": Option(None, optional_path, "write each variant's graph for `tensorboard --logdir DIR`",
                          metavar="DIR"),
    "graph": Option(None, optional_path, "explain this .pb/.pbtxt GraphDef or SavedModel folder instead of the "
                    "built-in network (--batch, --dtype, --variants and --target do not apply)", metavar="PATH"),
}
SEED_ONLY = ("batch", "dtype", "variants", "target")   # settings of the built-in network


@takes(job.Config, BESIDE, owngraph.Config, RUNNING, without=("returns", "path", "full_trials"))
def explain(**options):
    """Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs."""
    check_outputs(options["json"], options["csv"], options["plot"], inputs=(options["graph"],))
    output_dir("trace", options["trace"])
    output_dir("tensorboard", options["tensorboard"])
    run = {**running_options(options), "trace_dir": options["trace"], "tensorboard_dir": options["tensorboard"]}
    if options["graph"] is None:
        return measure(job, config_of(job.Config, options), **run)
    for name in SEED_ONLY:
        if options[name] != explain.options[name].default:
            raise UsageError(f"--{name} sets the built-in network; it does not apply with --graph")
    return measure(owngraph, config_of(owngraph.Config, {**options, "path": options["graph"]}), **run)
