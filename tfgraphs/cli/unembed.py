"""`tfgraphs unembed PATH -o OUT`: move a graph's large Consts into variables restored from a checkpoint."""

import sys

from tfgraphs.cli.common import add_output_flags, check_outputs, positive_int, seed, text_width
from tfgraphs.cli.owngraph import add_graph_flags, byte_size, graph_config
from tfgraphs.fileio import write_doc
from tfgraphs.jobs import unembed
from tfgraphs.jobs.runner import Progress
from tfgraphs.render.unembed import render
from tfgraphs.spec.owngraph import MIN_BYTES


def add_parser(sub):
    u = sub.add_parser("unembed", help="move a graph's large constants into variables loaded from a checkpoint",
                       description="Write PATH (a GraphDef or SavedModel) as a TF1 SavedModel in OUT in which every "
                                   "Const of at least --min-bytes is a non-trainable variable restored from the "
                                   "checkpoint. Load it with tf.compat.v1.saved_model.loader.load(sess, ['serve'], "
                                   "OUT). The input is never modified.")
    u.add_argument("path", help="a GraphDef (.pb binary, .pbtxt text) or a SavedModel folder")
    u.add_argument("-o", "--out", required=True, metavar="OUT", help="the SavedModel folder to write (new or empty)")
    u.add_argument("--min-bytes", type=byte_size, default=MIN_BYTES, metavar="SIZE",
                   help="move Consts holding at least SIZE bytes; units B, kB, MB, GB, KiB, MiB, GiB (default 1MiB)")
    u.add_argument("--check", action="store_true",
                   help="run the original and the rewritten graph on the same feeds in fresh workers; exit 1 when "
                        "their outputs differ by more than the dtype's tolerance")
    u.add_argument("--force", action="store_true", help="replace OUT when it exists and is not empty")
    u.add_argument("--runs", type=positive_int, default=10, help="--check: timed runs after the first (default 10)")
    u.add_argument("--seed", type=seed, default=0, help="seed of the feeds' random data (default 0)")
    add_graph_flags(u)
    add_output_flags(u, csv=False)
    u.set_defaults(func=run)


def run(args):
    check_outputs(args)
    config = graph_config(args, unembed, args.path, out=args.out, min_bytes=args.min_bytes, force=args.force,
                          check=args.check)
    plan = unembed.plan(config)
    result = unembed.run(config, plan, Progress(total=plan.workers, quiet=args.quiet), timeout=args.timeout)
    sys.stdout.write(render(result, args.format, text_width(args)))
    sys.stdout.flush()
    if args.json and result.before:
        write_doc(result.to_dict(), args.json)
    return 0 if result.ok else 1
