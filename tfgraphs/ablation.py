"""The explain job: variants x session presets, timed in fresh workers, and traced in separate ones."""

from dataclasses import asdict, dataclass, replace

from tfgraphs import attribution, compare
from tfgraphs.compare import Job
from tfgraphs.presets import PRESETS
from tfgraphs.results import Report, Row
from tfgraphs.variants import VARIANTS

DEFAULT_VARIANTS = ("constant", "placeholder", "variable")


@dataclass(frozen=True)
class Config(compare.Config):
    """compare's config plus the presets to try."""

    variants: tuple = DEFAULT_VARIANTS
    presets: tuple = tuple(PRESETS)

    def to_dict(self):
        return {**asdict(self), "variants": list(self.variants), "presets": list(self.presets)}


def run(config, progress, timeout=None, trace_dir=None, tensorboard_dir=None):
    """Timed workers for every variant x preset, then one traced worker each, kept apart from the timing."""
    timed = [Job(v, p) for v in config.variants for p in config.presets]
    measured, docs = compare.run_jobs(config, timed, progress, timeout)
    traced = {}
    once = replace(config, trials=1)
    for v in config.variants:
        for p in config.presets:
            # The graph is the same under every preset, so TensorBoard gets it once per variant.
            board = tensorboard_dir if p == config.presets[0] else None
            got, more = compare.run_jobs(once, [Job(v, p, "traced")], progress, timeout,
                                         trace_dir=trace_dir, tensorboard_dir=board)
            traced[(v, p)] = got[Job(v, p, "traced")][0]
            docs += more
    rows = []
    for job in timed:
        row = Row.from_trials(job.variant, measured[job], preset=job.preset)
        trace = traced[(job.variant, job.preset)]
        if trace.status == "ok":
            row = replace(row, top_ops=trace.top_ops)
        elif row.ok:
            row = replace(row, status="failed", error=f"traced run: {trace.error}")
        rows.append(row)
    embedded = {v for v in config.variants if VARIANTS[v].embeds_data}
    tf_version, machine = compare.envelope(docs)
    return Report("explain", config.to_dict(), tuple(rows), tf_version=tf_version, machine=machine,
                  extra={"attribution": attribution.attributions(rows, embedded)})
