"""tfgraphs.explain(): what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.options import names, output_dir, seed_network, whole
from tfgraphs.api.owngraph import GRAPH_DEFAULTS, graph_config
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.api.targets import remote_options
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain as job
from tfgraphs.jobs import owngraph
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.variants import VARIANTS

D = job.Config
G = GRAPH_DEFAULTS
SEED_ONLY = {"batch": D.batch, "dtype": D.dtype, "variants": D.variants, "target": D.target}


def explain(batch=D.batch, dtype=D.dtype, runs=D.runs, trials=D.trials, seed=D.seed, variants=D.variants,
            presets=D.presets, trace=None, tensorboard=None, target=D.target, baseline=D.baseline, place="data=ps",
            connect_timeout=D.connect_timeout, graph=None, tag=G["tag"], signature=G["signature"], feed=G["feed"],
            fetch=G["fetch"], int_high=G["int_high"], force=False, timeout=None, quiet=False, json=None, csv=None,
            plot=None):
    """Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs."""
    check_outputs(json, csv, plot)
    output_dir(trace)
    output_dir(tensorboard)
    chosen = names("presets", presets, list(PRESETS), "preset")
    outputs = {"trace_dir": trace, "tensorboard_dir": tensorboard, "force": force, "timeout": timeout,
               "quiet": quiet, "json": json, "csv": csv, "plot": plot}
    if graph is not None:
        given = {"batch": batch, "dtype": dtype, "variants": variants, "target": target}
        ignored = [name for name, value in given.items() if value != SEED_ONLY[name]]
        if ignored:
            raise UsageError(f"--{ignored[0]} measures the built-in network; it does not apply with --graph")
        config = graph_config(owngraph, graph, runs, seed, tag, signature, feed, fetch, int_high,
                              trials=whole("trials", trials), presets=chosen)
        return measure(owngraph, config, **outputs)
    config = job.Config(**seed_network(batch, dtype, runs, trials, seed),
                        variants=names("variants", variants, list(VARIANTS), "variant"), presets=chosen,
                        **remote_options(target, baseline, "output", place, connect_timeout))
    return measure(job, config, **outputs)
