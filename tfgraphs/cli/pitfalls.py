"""`tfgraphs pitfalls`: the TF1 pitfalls a course needs next, each measured in a fresh worker."""

from tfgraphs.api.pitfalls import pitfalls
from tfgraphs.cli.common import add_force_flag, add_output_flags, add_plot_flag, default, option, run_api
from tfgraphs.spec.pitfalls import LESSONS, VARIANT_NAMES

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
    s = sub.add_parser("pitfalls", help=command.summary,
                        description=DESCRIPTION)
    option(s, pitfalls, "lessons", f"comma-separated, from {', '.join(LESSONS)}", shown="all")
    option(s, pitfalls, "variants", f"comma-separated, from {', '.join(VARIANT_NAMES)}; each lesson runs those of "
                                    f"its own", shown="all")
    option(s, pitfalls, "batch", "examples in X [N,32,32,1] float64",
           shown=f"{default(pitfalls, 'batch')}, about 50 MB")
    option(s, pitfalls, "steps", "steps of each graph-growth loop, and runs of each repeat case in executor-cache, "
                                 "at least 2")
    option(s, pitfalls, "seed", "seed of the data generator")
    add_force_flag(s)
    add_output_flags(s)
    add_plot_flag(s, command)
    s.set_defaults(func=lambda args: run_api(pitfalls, args))
