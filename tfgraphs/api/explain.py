"""tfgraphs.explain(): what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.options import names, one_of, output_dir, seed_network, text, whole
from tfgraphs.api.owngraph import GRAPH_DEFAULTS, graph_config
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.api.targets import remote_options
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain as job
from tfgraphs.jobs import owngraph
from tfgraphs.jobs.explain import Config
from tfgraphs.spec.network import DTYPES
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.variants import VARIANTS


def _seed_only(batch, dtype, variants, target):
    """Refuse, with --graph, a setting of the built-in network other than its default."""
    given = {"batch": whole("batch", batch), "dtype": one_of("dtype", dtype, DTYPES),
             "variants": names("variants", variants, list(VARIANTS), "variant"), "target": text("target", target)}
    for name, value in given.items():
        if value != getattr(Config, name):
            raise UsageError(f"--{name} sets the built-in network; it does not apply with --graph")


def explain(batch=Config.batch, dtype=Config.dtype, runs=Config.runs, trials=Config.trials, seed=Config.seed,
            variants=Config.variants, presets=Config.presets, trace=None, tensorboard=None, target=Config.target,
            baseline=Config.baseline, place="data=ps", connect_timeout=Config.connect_timeout, graph=None,
            tag=GRAPH_DEFAULTS["tag"], signature=GRAPH_DEFAULTS["signature"], feed=GRAPH_DEFAULTS["feed"],
            fetch=GRAPH_DEFAULTS["fetch"], int_high=GRAPH_DEFAULTS["int_high"], force=False, timeout=None,
            quiet=False, json=None, csv=None, plot=None):
    """Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs."""
    check_outputs(json, csv, plot)
    output_dir("trace", trace)
    output_dir("tensorboard", tensorboard)
    chosen = names("presets", presets, list(PRESETS), "preset")
    outputs = {"trace_dir": trace, "tensorboard_dir": tensorboard, "force": force, "timeout": timeout,
               "quiet": quiet, "json": json, "csv": csv, "plot": plot}
    if graph is not None:
        _seed_only(batch, dtype, variants, target)
        config = graph_config(owngraph, graph, runs, seed, tag, signature, feed, fetch, int_high,
                              trials=whole("trials", trials), presets=chosen)
        return measure(owngraph, config, **outputs)
    config = Config(**seed_network(batch, dtype, runs, trials, seed),
                    variants=names("variants", variants, list(VARIANTS), "variant"), presets=chosen,
                    **remote_options(target, baseline, "output", place, connect_timeout))
    return measure(job, config, **outputs)
