"""The pitfalls job: each lesson on each of its variants, in a fresh worker, in the order spec.pitfalls names them."""

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.pitfalls import LessonRun
from tfgraphs.records.results import PitfallsResults
from tfgraphs.records.schema import read_worker
from tfgraphs.spec.pitfalls import DTYPE, LESSONS
from tfgraphs.spec.limits import refusal
from tfgraphs.spec.variants import VARIANTS


def embedded_copies(lesson, variant):
    """Copies of X a GraphDef holds in this lesson on this variant."""
    return max(VARIANTS[variant].copies_in_graph, 1 if LESSONS[lesson].always_embeds else 0)


def sized_as(lesson, variant):
    """The variant whose memory the guard counts for this lesson: one that embeds X as often as the lesson's
    graphs hold it at once."""
    copies = embedded_copies(lesson, variant) * LESSONS[lesson].graphs_at_once
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
    sized = tuple((sized_as(*p), config.batch, DTYPE) for p in runnable)
    return Plan(refused, tuple(refused.values()), workers=len(runnable), seed_workers=sized)


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
    return PitfallsResults(config, tuple(lessons), tf_version=tf_version, machine=machine)
