"""tfgraphs.compare(): the seed network fed several ways, each phase measured in a fresh worker."""

from tfgraphs.api.options import names, seed_network
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.api.targets import remote_options
from tfgraphs.jobs import compare as job
from tfgraphs.jobs.compare import Config
from tfgraphs.spec.variants import VARIANTS


def compare(batch=6000, dtype="float64", runs=10, trials=1, seed=0,
            variants=("numpy", "constant", "placeholder", "variable"), target="", baseline=True, returns="output",
            place="data=ps", connect_timeout=10.0, force=False, timeout=None, quiet=False, json=None, csv=None,
            plot=None):
    """Build the seed network from the same data in each variant and measure every phase in a fresh worker."""
    check_outputs(json, csv, plot)
    config = Config(**seed_network(batch, dtype, runs, trials, seed),
                        variants=names("variants", variants, list(VARIANTS), "variant"),
                        **remote_options(target, baseline, returns, place, connect_timeout))
    return measure(job, config, force=force, timeout=timeout, quiet=quiet, json=json, csv=csv, plot=plot)
