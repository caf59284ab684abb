"""`tfgraphs pitfalls`: the TF1 pitfalls a course needs next, each measured in a fresh worker."""

from tfgraphs.cli.common import add_output_flags, check_outputs, choose, positive_int, run_job, seed
from tfgraphs.jobs import pitfalls
from tfgraphs.spec.pitfalls import LESSONS, VARIANT_NAMES

DESCRIPTION = (
    "Measure four TF1 pitfalls on the seed network, each lesson on each of its variants in a fresh worker: "
    "executor-cache (which sess.run calls build a new executor: a new fetch list, reordered fetches, a fed "
    "intermediate tensor, make_callable), graph-growth (a training loop that creates an op on every step, against one "
    "that creates it once, then graph.finalize()), saved-copies (X in Saver's .meta, a checkpoint and a frozen graph) "
    "and placeholder-default (placeholder_with_default keeps its default in the GraphDef). Variants per lesson: "
    + "; ".join(f"{name}: {', '.join(lesson.variants)}" for name, lesson in LESSONS.items()) + ".")


def add_parser(sub):
    """Add `pitfalls` to the subcommands."""
    s = sub.add_parser("pitfalls", help="the executor cache, a graph that grows in a loop, copies of X in saved "
                                        "files, placeholder_with_default", description=DESCRIPTION)
    d = pitfalls.Config()
    s.add_argument("--lessons", default=",".join(LESSONS),
                   help=f"comma-separated, from {', '.join(LESSONS)} (default all)")
    s.add_argument("--variants", default=",".join(VARIANT_NAMES),
                   help=f"comma-separated, from {', '.join(VARIANT_NAMES)}; each lesson runs those of its own "
                        f"(default all)")
    s.add_argument("--batch", type=positive_int, default=d.batch,
                   help=f"examples in X [N,32,32,1] float64 (default {d.batch}, about 50 MB)")
    s.add_argument("--steps", type=positive_int, default=d.steps,
                   help=f"steps of each graph-growth loop, and runs of each repeat case in executor-cache, at least 2 "
                        f"(default {d.steps})")
    s.add_argument("--seed", type=seed, default=d.seed, help=f"seed of the data generator (default {d.seed})")
    s.add_argument("--force", action="store_true", help="run even when the memory estimate exceeds what is available")
    add_output_flags(s)
    s.set_defaults(func=run)


def run(args):
    check_outputs(args)
    config = pitfalls.Config(lessons=choose(args.lessons, tuple(LESSONS), "lesson"),
                             variants=choose(args.variants, VARIANT_NAMES, "variant"),
                             batch=args.batch, steps=args.steps, seed=args.seed)
    return run_job(args, pitfalls, config)
