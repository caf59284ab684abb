"""`tfgraphs explain`: what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.explain import explain
from tfgraphs.cli.common import add_options, run_api


def add_parser(sub, command):
    e = sub.add_parser("explain", help=command.summary,
                       description="Run each variant under session presets that switch graph optimizers off, "
                                   "trace the first and a later run of each, and split the first run's extra time "
                                   "into Grappler, classic constant folding and the rest.")
    add_options(e, explain, command)
    e.set_defaults(func=lambda args: run_api(explain, args))
