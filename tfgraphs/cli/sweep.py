"""`tfgraphs sweep`: graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit."""

from tfgraphs.api.sweep import sweep
from tfgraphs.cli.common import add_options, run_api


def add_parser(sub, command):
    s = sub.add_parser("sweep", help=command.summary,
                       description="Measure each variant at each batch in a fresh worker, fit graph bytes = "
                                   "a*batch + b, predict the largest batch whose GraphDef serializes under 2 GiB, "
                                   "and ask TensorFlow to embed the next one (from a zero-stride array view).")
    add_options(s, sweep, command)
    s.set_defaults(func=lambda args: run_api(sweep, args))
