"""tfgraphs.explain(): what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.options import names, one_of, output_dir, seed_network, text, whole
from tfgraphs.api.owngraph import graph_config
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


def explain(batch=6000, dtype="float64", runs=10, trials=3, seed=0, variants=("constant", "placeholder", "variable"),
            presets=("default", "no-grappler", "no-folding", "bare"), trace=None, tensorboard=None, target="",
            baseline=True, place="data=ps", connect_timeout=10.0, graph=None, tag="serve",
            signature="serving_default", feed=(), fetch=(), int_high=2, force=False, timeout=None, quiet=False,
            json=None, csv=None, plot=None):
    """Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs."""
    check_outputs(json, csv, plot, inputs=(graph,))
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
