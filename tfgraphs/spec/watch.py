"""What `tfgraphs watch` can diagnose in a user's script: each kind's remedy and the lesson or lab that teaches it."""

from dataclasses import dataclass

from tfgraphs.spec.owngraph import MIN_BYTES

MODULE = "tfgraphs.worker.watch"   # the worker that runs the script with the hooks on
WATCHED_BYTES = MIN_BYTES          # the smallest Const or feed named unless --min-bytes says otherwise


@dataclass(frozen=True)
class Kind:
    """One diagnosis: what it is called in the JSON, how to remedy it, and where the course teaches it."""

    name: str
    remedy: str
    lesson: str


KINDS = {k.name: k for k in (
    Kind("embedded-constant", "feed the array through a tf.compat.v1.placeholder, or load it once into a variable "
         "whose initial value is a placeholder fed once (var.load(array, sess)); tf.Variable(array) embeds it again",
         "lesson 1 (tfgraphs compare), labs 1 and 7"),
    Kind("repeated-feed", "load the array once into a variable whose initial value is a placeholder fed once "
         "(not tf.Variable(array), which embeds it)", "lesson 1 (tfgraphs compare: the variable variant), lab 7"),
    Kind("graph-growth", "create the ops once, before the loop, and call graph.finalize() so that a new op raises",
         "lesson 5 (tfgraphs pitfalls --lessons graph-growth), labs 6 and 7"),
    Kind("new-signature", "fetch one set of names at this line, or run each set once before the loop that is timed "
         "(each new set of feeds and fetches builds its executors once per session; make_callable does not avoid "
         "that)", "lesson 5 (tfgraphs pitfalls --lessons executor-cache)"),
    Kind("retracing", "give the tf.function an input_signature with None dimensions, so new shapes reuse one trace "
         "(reduce_retracing=True generalises only after a retrace)", "lesson 4 (tfgraphs shapes), lab 4"),
)}
