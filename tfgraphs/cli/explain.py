"""`tfgraphs explain`: what the first sess.run pays for, by optimizer presets and traced runs."""

from tfgraphs.api.explain import explain
from tfgraphs.cli.common import OMITTED, add_measure_flags, add_plot_flag, add_variants_flag, option, run_api
from tfgraphs.cli.owngraph import add_graph_flags
from tfgraphs.cli.targets import add_remote_flags
from tfgraphs.spec.presets import PRESETS
from tfgraphs.spec.variants import VARIANTS


def add_parser(sub, command):
    e = sub.add_parser("explain", help=command.summary,
                       description="Run each variant under session presets that switch graph optimizers off, "
                                   "trace the first and a later run of each, and split the first run's extra time "
                                   "into Grappler, classic constant folding and the rest.")
    add_measure_flags(e, explain)
    add_variants_flag(e, explain, VARIANTS)
    option(e, explain, "presets", "comma-separated session presets: "
           + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()), shown="all")
    e.add_argument("--trace", metavar="DIR", default=OMITTED,
                   help="write a Chrome trace (Perfetto, chrome://tracing) of the first and second run of each "
                        "variant x preset to DIR")
    e.add_argument("--tensorboard", metavar="DIR", default=OMITTED,
                   help="write each variant's graph for `tensorboard --logdir DIR`")
    add_plot_flag(e, command)
    add_remote_flags(e, explain, returns=False)
    e.add_argument("--graph", metavar="PATH", default=OMITTED,
                   help="explain this .pb/.pbtxt GraphDef or SavedModel folder instead of the built-in network "
                        "(--batch, --dtype, --variants and --target do not apply)")
    add_graph_flags(e, explain)
    e.set_defaults(func=lambda args: run_api(explain, args))
