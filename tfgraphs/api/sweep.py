"""tfgraphs.sweep(): graph size, time and memory against batch, fitted up to the 2 GiB GraphDef limit."""

from tfgraphs.api.options import batch_list, names, seed_network
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.jobs import sweep as job
from tfgraphs.jobs.sweep import Config
from tfgraphs.spec.variants import VARIANTS


def sweep(batches=(500, 1000, 2000, 4000), dtype="float64", runs=5, trials=1, seed=0,
          variants=("constant", "placeholder"), force=False, timeout=None, quiet=False, json=None, csv=None,
          plot=None):
    """Measure each variant at each batch, fit graph bytes against batch and put the predicted limit to TensorFlow."""
    check_outputs(json, csv, plot)
    found = batch_list(batches)
    checked = seed_network(found[0], dtype, runs, trials, seed)
    config = Config(batches=found, dtype=checked["dtype"], runs=checked["runs"], trials=checked["trials"],
                        seed=checked["seed"], variants=names("variants", variants, list(VARIANTS), "variant"))
    return measure(job, config, force=force, timeout=timeout, quiet=quiet, json=json, csv=csv, plot=plot)
