"""The pitfalls job: each lesson on each of its variants, in a fresh worker, in the order spec.pitfalls names them."""

from dataclasses import asdict, dataclass

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.jobs.plan import Plan
from tfgraphs.records.judge import FEWEST, ONE_AGAINST, SIGNED_RANK
from tfgraphs.records.pitfalls import LessonRun
from tfgraphs.records.results import Results
from tfgraphs.records.schema import read_worker
from tfgraphs.spec import common
from tfgraphs.spec.options import Names, Option, Whole
from tfgraphs.spec.pitfalls import DTYPE, GROWTH_CASES, LESSONS, VARIANT_NAMES, PitfallsTask
from tfgraphs.spec.limits import refusal
from tfgraphs.spec.variants import VARIANTS


@dataclass(frozen=True)
class Config:
    """What the user asked to measure."""

    lessons: tuple = Option(tuple(LESSONS), Names(tuple(LESSONS), "lesson"),
                            f"comma-separated, from {', '.join(LESSONS)}", shown="all").field()
    variants: tuple = common.CHOSEN_VARIANTS.field(
        default=VARIANT_NAMES, check=Names(VARIANT_NAMES, "variant"), shown="all",
        help=f"comma-separated, from {', '.join(VARIANT_NAMES)}; each lesson runs those of its own")
    batch: int = common.BATCH.field(help="examples in X [N,32,32,1] float64", note="about 50 MB")
    # The default lets a single run (executor-cache's first run) be told apart from its repeats.
    steps: int = Option(ONE_AGAINST,
                        Whole(least=2, most=100_000, why="a step after the first is needed to compare with it"),
                        f"steps of each graph-growth loop and runs of each feed in feed-alignment, the two conditions "
                        f"taken in turns (a signed-rank test needs {FEWEST[SIGNED_RANK]} pairs; graph-growth pairs the "
                        f"steps after the first), and runs of each repeat case in executor-cache (a single run is "
                        f"placed among its repeats only from {ONE_AGAINST} of them)").field()
    seed: int = common.SEED.field()

    def to_dict(self):
        return {**asdict(self), "lessons": list(self.lessons), "variants": list(self.variants), "dtype": DTYPE}

    def pairs(self):
        """(lesson, variant) for every lesson asked for and each of its variants asked for, in order."""
        return [(lesson, v) for lesson in self.lessons for v in LESSONS[lesson].variants if v in self.variants]

    def task(self, lesson, variant):
        return PitfallsTask(lesson=lesson, variant=variant, batch=self.batch, steps=self.steps, seed=self.seed)


def embedded_copies(lesson, variant):
    """Copies of X a GraphDef holds in this lesson on this variant."""
    return max(VARIANTS[variant].copies_in_graph, 1 if LESSONS[lesson].always_embeds else 0)


def sized_as(lesson, variant):
    """The variant whose memory the guard counts for this lesson: one that embeds X as often as the lesson's
    sessions hold it at once (graph-growth's leaky and fixed loops take turns, so both graphs live together)."""
    copies = embedded_copies(lesson, variant) * (len(GROWTH_CASES) if lesson == "graph-growth" else 1)
    if not copies:
        return variant
    return next(name for name, v in VARIANTS.items() if v.copies_in_graph == copies)


def plan(config):
    """Refuse an empty selection; refuse each lesson whose embedded X would pass 2 GiB."""
    pairs = config.pairs()
    if not pairs:
        raise UsageError(f"no lesson of {','.join(config.lessons)} runs any of the variants "
                         f"{','.join(config.variants)}; see --help for each lesson's variants")
    refused = {}
    for lesson, variant in pairs:
        reason = refusal(variant, config.batch, DTYPE, copies=embedded_copies(lesson, variant),
                         label=f"{lesson} {variant}")
        if reason:
            refused[(lesson, variant)] = reason
    runnable = [p for p in pairs if p not in refused]
    needs = tuple((sized_as(*p), config.batch, DTYPE) for p in runnable)
    return Plan(refused, tuple(refused.values()), workers=len(runnable), needs=needs)


def run(config, plan, progress, timeout=None):
    """One worker per lesson and variant; a refused pair becomes a failed lesson without a worker."""
    lessons, docs = [], []
    for lesson, variant in config.pairs():
        if (lesson, variant) in plan.refused:
            lessons.append(LessonRun.refused(lesson, variant, plan.refused[(lesson, variant)]))
            continue
        doc = runner.run_worker(config.task(lesson, variant), f"{lesson} {variant}", progress, timeout)
        docs.append(doc)
        lessons.append(LessonRun.from_dict({**read_worker(LessonRun, doc), "lesson": lesson, "variant": variant}))
    tf_version, machine = runner.envelope(docs)
    return Results("pitfalls", config.to_dict(), tuple(lessons), tf_version=tf_version, machine=machine)
