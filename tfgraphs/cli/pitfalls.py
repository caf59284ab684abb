"""`tfgraphs pitfalls`: the TF1 pitfalls a course needs next, each measured in a fresh worker."""

from tfgraphs.api.pitfalls import pitfalls
from tfgraphs.cli.common import add_options, run_api
from tfgraphs.spec.pitfalls import LESSONS

DESCRIPTION = (
    "Measure eight TF1 pitfalls on the seed network, each lesson on each of its variants in a fresh worker: "
    "executor-cache (which sess.run calls build a new executor: a new fetch list, reordered fetches, a fed "
    "intermediate tensor, make_callable and a callable made from CallableOptions), graph-growth (a training loop "
    "that creates an op on every step, against one that creates it once: each step's Extend and run, then "
    "graph.finalize()), saved-copies (X in Saver's .meta, a checkpoint and a frozen graph), placeholder-default "
    "(placeholder_with_default keeps its default in the GraphDef, fed or not), folding (what the constant folders "
    "can replace: a large or a scalar fetch, a raised folder limit, a stateful or fed input, read from the graphs "
    "that ran), pruning (a run executes only its fetches' fan-in: relu as a tensor, as an op, and an assign_add "
    "outside it, counted from step stats), feed-alignment (the same feed from a 64-byte-aligned buffer and from one "
    "8 bytes off it) and executor-leak (every new set of targets gets an executor the session keeps: resident "
    "memory per new set). Variants per lesson: "
    + "; ".join(f"{name}: {', '.join(lesson.variants)}" for name, lesson in LESSONS.items()) + ".")


def add_parser(sub, command):
    """Add `pitfalls` to the subcommands."""
    s = sub.add_parser("pitfalls", help=command.summary, description=DESCRIPTION)
    add_options(s, pitfalls, command)
    s.set_defaults(func=lambda args: run_api(pitfalls, args))
