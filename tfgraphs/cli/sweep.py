"""`tfgraphs sweep`: graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit."""

from tfgraphs.api.sweep import sweep
from tfgraphs.cli.common import add_measure_flags, add_plot_flag, add_variants_flag, option, run_api
from tfgraphs.spec.variants import VARIANTS


def add_parser(sub, command):
    s = sub.add_parser("sweep",
                       help=command.summary,
                       description="Measure each variant at each batch in a fresh worker, fit graph bytes = "
                                   "a*batch + b, predict the largest batch whose GraphDef serializes under 2 GiB, "
                                   "and ask TensorFlow to embed the next one (from a zero-stride array view).")
    add_measure_flags(s, sweep, batch=False)
    option(s, sweep, "batches", "comma-separated batches, at least two", metavar="N,N,...")
    add_variants_flag(s, sweep, VARIANTS)
    add_plot_flag(s, command)
    s.set_defaults(func=lambda args: run_api(sweep, args))
