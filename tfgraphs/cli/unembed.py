"""`tfgraphs unembed PATH -o OUT`: move a graph's large Consts into variables restored from a checkpoint."""

from tfgraphs.api.unembed import unembed
from tfgraphs.cli.common import OMITTED, add_output_flags, option, run_api
from tfgraphs.cli.owngraph import add_graph_flags


def add_parser(sub, command):
    u = sub.add_parser("unembed", help=command.summary,
                       description="Write PATH (a GraphDef or SavedModel) as a TF1 SavedModel in OUT in which every "
                                   "Const of at least --min-bytes is a non-trainable variable restored from the "
                                   "checkpoint. Load it with tf.compat.v1.saved_model.loader.load(sess, ['serve'], "
                                   "OUT). The input is never modified.")
    u.add_argument("path", help="a GraphDef (.pb binary, .pbtxt text) or a SavedModel folder")
    u.add_argument("-o", "--out", required=True, metavar="OUT", help="the SavedModel folder to write (new or empty)")
    option(u, unembed, "min_bytes", "move Consts holding at least SIZE bytes; units B, kB, MB, GB, KiB, MiB, GiB",
           metavar="SIZE", shown="1MiB")
    u.add_argument("--check", action="store_true", default=OMITTED,
                   help="run the original and the rewritten graph on the same feeds in fresh workers; exit 1 when "
                        "their outputs differ by more than the dtype's tolerance")
    u.add_argument("--replace", action="store_true", default=OMITTED,
                   help="replace OUT when it exists and is not empty (the old one is removed only once the new one "
                        "is in place)")
    option(u, unembed, "runs", "--check: timed runs after the first")
    option(u, unembed, "seed", "seed of the feeds' random data")
    add_graph_flags(u, unembed)
    add_output_flags(u, csv=False)
    u.set_defaults(func=lambda args: run_api(unembed, args))
