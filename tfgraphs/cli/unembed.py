"""`tfgraphs unembed PATH -o OUT`: move a graph's large Consts into variables restored from a checkpoint."""

from tfgraphs.api.unembed import unembed
from tfgraphs.cli.common import add_options, run_api


def add_parser(sub, command):
    u = sub.add_parser("unembed", help=command.summary,
                       description="Write PATH (a GraphDef or SavedModel) as a TF1 SavedModel in OUT in which every "
                                   "Const of at least --min-bytes is a non-trainable variable restored from the "
                                   "checkpoint. Load it with tf.compat.v1.saved_model.loader.load(sess, ['serve'], "
                                   "OUT). The input is never modified.")
    add_options(u, unembed, command)
    u.set_defaults(func=lambda args: run_api(unembed, args))
