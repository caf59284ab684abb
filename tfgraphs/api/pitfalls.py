"""tfgraphs.pitfalls(): the TF1 pitfalls a course needs next, each measured in a fresh worker."""

from tfgraphs.api.options import names, whole
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.jobs import pitfalls as job
from tfgraphs.jobs.pitfalls import Config
from tfgraphs.spec.pitfalls import LESSONS, VARIANT_NAMES


def pitfalls(lessons=tuple(LESSONS),
             variants=("constant", "placeholder", "variable"), batch=6000, steps=20, seed=0, force=False,
             timeout=None, quiet=False, json=None, csv=None, plot=None):
    """Measure each lesson on each of its variants, every one in a fresh worker."""
    check_outputs(json, csv, plot)
    config = Config(lessons=names("lessons", lessons, tuple(LESSONS), "lesson"),
                        variants=names("variants", variants, VARIANT_NAMES, "variant"),
                        batch=whole("batch", batch), steps=whole("steps", steps), seed=whole("seed", seed, least=0))
    return measure(job, config, force=force, timeout=timeout, quiet=quiet, json=json, csv=csv, plot=plot)
