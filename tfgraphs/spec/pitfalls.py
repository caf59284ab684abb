"""The pitfalls lessons: each one's name, the variants it runs, and the cases it measures, in order; and the task
of one pitfalls worker."""

import itertools
from dataclasses import asdict, dataclass, field
from typing import ClassVar

from tfgraphs.processes import choice
from tfgraphs.spec import tflog
from tfgraphs.spec.network import BATCH, CHOSEN_VARIANTS, VARIANTS
from tfgraphs.spec.options import FEWEST, ONE_AGAINST, SEED, SIGNED_RANK, Names, Option, Whole

DTYPE = "float64"   # every lesson runs the seed network in float64, as compare does by default


@dataclass(frozen=True)
class Lesson:
    """One lesson, as every layer needs it: the variants it runs (one worker each), its cases named as they appear
    in results, how many copies of X the job sizes its workers for, and the title of its section of the page. The
    code each layer runs for it (the worker's run, the findings, the page's table) is keyed by its name."""

    name: str
    title: str
    variants: tuple
    cases: dict                # {variant: (case name, ...)}, in the order they are measured
    always_embeds: bool = False  # X lands in a GraphDef whatever the variant (a frozen graph, a placeholder default)
    graphs_at_once: int = 1    # the lesson's graphs one worker holds together, each with its own copy of X


# make_callable returns a function that runs the session as sess.run does; _make_callable_from_options makes
# TensorFlow's own callable.
EXECUTOR_CASES = ("first", "repeat", "new fetches", "new fetches repeat", "reordered fetches", "new feeds",
                  "make_callable", "callable first call", "callable repeat",
                  "real callable made", "real callable first call", "real callable repeat")
# Cases timed --steps times: the runs whose executor already exists.
REPEATED_CASES = ("repeat", "new fetches repeat", "callable repeat", "real callable repeat")
GROWTH_CASES = ("op per step", "op once")
GRAPH, META, CHECKPOINT, FROZEN = "graph", "saver .meta", "checkpoint", "frozen graph"
DEFAULT_CASES = ("placeholder", "with default, not fed", "with default, fed")
# What can be folded: the size of the fetched tensor, the folder's own limit, a stateful input, a fed input.
FOLDING_CASES = ("whole output", "scalar fetch", "larger folder limit", "stateful input", "fed input")
RAISED_FOLD_LIMIT = 2**31 - 1   # OptimizerOptions.max_folded_constant_in_bytes in the larger-limit case
# What a run executes: relu fetched as a tensor, as an op, and an assign_add outside relu's fan-in.
PRUNING_CASES = ("fetch relu", "fetch relu's op", "fetch the assign_add")
ALIGNMENT_CASES = ("aligned feed", "unaligned feed")   # X's data at a 64-byte boundary, and 8 bytes past one
# Every non-empty set of these ops is a new signature; the first set is run once more at the end.
LEAKED_TENSORS = ("conv", "pool", "relu")
LEAK_AGAIN = "the first set again"
LEAKED_SETS = tuple(c for k in range(1, len(LEAKED_TENSORS) + 1) for c in itertools.combinations(LEAKED_TENSORS, k))
LEAK_CASES = tuple("[" + ", ".join(c) + "]" for c in LEAKED_SETS) + (LEAK_AGAIN,)

LESSONS = {
    lesson.name: lesson
    for lesson in (
        Lesson("executor-cache", "Executor cache", ("constant", "placeholder"),
               {"constant": EXECUTOR_CASES, "placeholder": EXECUTOR_CASES}),
        # The leaky and the fixed loop take turns in one worker, so both graphs live together.
        Lesson("graph-growth", "Graph growth", ("constant", "placeholder"),
               {"constant": GROWTH_CASES, "placeholder": GROWTH_CASES}, graphs_at_once=len(GROWTH_CASES)),
        Lesson("saved-copies", "Saved copies", ("constant", "variable"),
               {"constant": (GRAPH, META), "variable": (GRAPH, META, CHECKPOINT, FROZEN)}, always_embeds=True),
        Lesson("placeholder-default", "Placeholder default", ("placeholder",), {"placeholder": DEFAULT_CASES},
               always_embeds=True),
        # Its cases build their own graphs (an embedded X, a dataset, a placeholder); the worker names the variant.
        Lesson("folding", "What can be folded", ("constant",), {"constant": FOLDING_CASES}),
        Lesson("pruning", "What a run executes", ("placeholder",), {"placeholder": PRUNING_CASES}),
        Lesson("feed-alignment", "Feed alignment", ("placeholder",), {"placeholder": ALIGNMENT_CASES}),
        Lesson("executor-leak", "Executors kept", ("constant", "placeholder"),
               {"constant": LEAK_CASES, "placeholder": LEAK_CASES}),
    )
}
VARIANT_NAMES = tuple(dict.fromkeys(v for lesson in LESSONS.values() for v in lesson.variants))


@dataclass(frozen=True)
class PitfallsTask:
    """One lesson of `tfgraphs pitfalls` on one variant of the seed network."""

    MODULE: ClassVar[str] = "tfgraphs.worker.pitfalls"
    lesson: str = choice(LESSONS)
    variant: str = choice(VARIANTS)
    batch: int = field()
    steps: int = field()
    seed: int = 0

    @property
    def logs_first_run(self):
        """What TensorFlow logs of the worker's first run (a spec.tflog environment, from its start), or None."""
        return tflog.ENV if self.lesson == "folding" else None


@dataclass(frozen=True)
class Config:
    """What the user asked of the pitfalls: which lessons, which variants, the batch and the steps."""

    lessons: tuple = Option(tuple(LESSONS), Names(tuple(LESSONS), "lesson"),
                            f"comma-separated, from {', '.join(LESSONS)}", shown="all").field()
    variants: tuple = CHOSEN_VARIANTS.field(
        default=VARIANT_NAMES, check=Names(VARIANT_NAMES, "variant"), shown="all",
        help=f"comma-separated, from {', '.join(VARIANT_NAMES)}; each lesson runs those of its own")
    batch: int = BATCH.field(help="examples in X [N,32,32,1] float64", note="about 50 MB")
    # The default lets a single run (executor-cache's first run) be told apart from its repeats.
    steps: int = Option(ONE_AGAINST,
                        Whole(least=2, most=100_000, why="a step after the first is needed to compare with it"),
                        f"steps of each graph-growth loop and runs of each feed in feed-alignment, the two conditions "
                        f"taken in turns (a signed-rank test needs {FEWEST[SIGNED_RANK]} pairs; graph-growth pairs the "
                        f"steps after the first), and runs of each repeat case in executor-cache (a single run is "
                        f"placed among its repeats only from {ONE_AGAINST} of them)").field()
    seed: int = SEED.field()

    @property
    def dtype(self):
        """Every lesson's dtype, saved beside the options."""
        return DTYPE

    def to_dict(self):
        return {**asdict(self), "lessons": list(self.lessons), "variants": list(self.variants), "dtype": DTYPE}

    def pairs(self):
        """(lesson, variant) for every lesson asked for and each of its variants asked for, in order."""
        return [(lesson, v) for lesson in self.lessons for v in LESSONS[lesson].variants if v in self.variants]

    def task(self, lesson, variant):
        return PitfallsTask(lesson=lesson, variant=variant, batch=self.batch, steps=self.steps, seed=self.seed)
