"""`tfgraphs watch SCRIPT [ARGS...]`: run a TF1 script unchanged, then say what its graph cost, line by line."""

from tfgraphs.api.watch import watch
from tfgraphs.cli.common import add_options, run_api

DESCRIPTION = (
    "Run SCRIPT in a fresh process as `python SCRIPT ARGS...` would (the same sys.argv, __name__ == '__main__', its "
    "own stdin, stdout and stderr, and the exit status a shell shows for it), with TensorFlow's Session.run, "
    "make_callable and op creation watched; what it leaves running when it ends is ended and named. When it ends, "
    "raises or is interrupted, say by the script's own line numbers which lines embedded large constants, kept "
    "adding ops after the first run, fed the same large array on every call, paid a first run for each new set of "
    "fed and fetched names, or retraced a tf.function; a clean script gets no finding. Flags go before SCRIPT: "
    "everything after it is the script's, as in `tfgraphs watch --tf1 train.py --epochs 3`.")


def add_parser(sub, command):
    """Add `watch` to the subcommands."""
    w = sub.add_parser("watch", help=command.summary, description=DESCRIPTION)
    add_options(w, watch, command)
    w.set_defaults(func=lambda args: run_api(watch, args))
