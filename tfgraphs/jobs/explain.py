"""The explain job: variants x session presets, timed in fresh workers, and traced in separate ones."""

from dataclasses import replace

from tfgraphs.jobs import runner, seed
from tfgraphs.jobs.runner import Plan
from tfgraphs.records.explain import attributions
from tfgraphs.records.results import ExplainResults
from tfgraphs.records.rows import EVIDENCE_FIELDS, Measurement, Row
from tfgraphs.spec.seed import label

SINGLE_THREAD_VARIANT = "placeholder"   # the network without X in it: nothing to fold, evaluated as the folder would


def row_groups(config, refused):
    """(variant, target) of every row group: in-process (target None) unless --no-baseline, then remote."""
    # A variant refused outright, or refused only remotely, loses those groups.
    targets = list(dict.fromkeys(t for t, _ in config.placements()))
    return [(v, t) for v in seed.runnable(config, refused) for t in targets if not (t and (v, "output") in refused)]


def plan(config):
    """Refused variants are left out: the ablation of a graph that cannot be built (or sent) says nothing."""
    seed.check_remote(config)
    refused = seed.refusals(config)
    refused.update(seed.remote_refusals(config, seed.runnable(config, refused)))
    groups = row_groups(config, refused)
    return Plan(refused, tuple(refused.values()), workers=len(groups) * len(config.presets) * (config.trials + 1) + 1,
                seed_workers=tuple((v, config.batch, config.dtype) for v in dict.fromkeys(v for v, _ in groups)))


def run(config, plan, progress, timeout=None, trace_dir=None, tensorboard_dir=None):
    """Timed workers for every variant x target x preset, then one traced worker each, kept apart from the timing."""
    groups = row_groups(config, plan.refused)
    run_one = seed.worker_runner(config)
    timed = [config.task(v, preset=p, target=t) for v, t in groups for p in config.presets]
    docs, ran = runner.run_trials(timed, config.trials, label, progress, timeout, run=run_one)
    traced = _traced(config, groups, run_one, progress, timeout, trace_dir, tensorboard_dir)
    ran.extend(traced.values())
    rows = [_row(t, docs[t], Measurement.from_worker(traced[(t.variant, t.target, t.preset)])) for t in timed]
    variants = list(dict.fromkeys(v for v, _ in groups))
    single = config.task(SINGLE_THREAD_VARIANT, mode="single-thread")
    doc = runner.run_worker(single, label(single), progress, timeout)
    ran.append(doc)
    tf_version, machine = runner.envelope(ran)
    config = replace(config, variants=tuple(variants))
    return ExplainResults(config, tuple(rows), tf_version=tf_version, machine=machine,
                          attribution=tuple(attributions(rows)), single_thread=_single_thread(doc))


def traced_tasks(config, groups, trace_dir=None, tensorboard_dir=None):
    """The traced task of every variant x target x preset of groups."""
    tasks, boarded = [], set()
    for v, t in groups:
        for p in config.presets:
            # The graph is the same under every preset and target, so TensorBoard gets it once per variant.
            board = tensorboard_dir if v not in boarded else None
            boarded.add(v)
            tasks.append(config.task(v, preset=p, mode="traced", trace_dir=trace_dir, tensorboard_dir=board, target=t))
    return tasks


def writes(config, trace_dir, tensorboard_dir):
    """(trace files, TensorBoard folders) the traced workers may write, a refused variant's included: known before
    the plan, so an output over one is refused before any work."""
    found = [task.writes() for task in traced_tasks(config, row_groups(config, {}), trace_dir, tensorboard_dir)]
    return [p for traces, _ in found for p in traces], [board for _, board in found if board]


def _traced(config, groups, run_one, progress, timeout, trace_dir, tensorboard_dir):
    """{(variant, target, preset): document} of one traced worker each."""
    return {(task.variant, task.target, task.preset): run_one(task, label(task), progress, timeout)
            for task in traced_tasks(config, groups, trace_dir, tensorboard_dir)}


def _single_thread(doc):
    """What the single-threaded worker measured: its runs, or why there are none."""
    kept = ("status", "error", "first_run_s", "runs_s", "max_abs_err")
    return {"variant": SINGLE_THREAD_VARIANT, "intra_op_threads": 1, "inter_op_threads": 1,
            **{k: doc.get(k) for k in kept}}


def _row(task, docs, trace):
    """A timed row with its traced run's ops; failed when the traced run failed."""
    row = seed.asked_place(Row.from_trials(task.variant, [Measurement.from_worker(d) for d in docs],
                                              preset=task.preset), task.target, task.returns)
    if trace.status == "ok":
        # The traced later run is what says whether Conv2D still ran; the logged first run, where its time went.
        evidence = {k: getattr(trace, k) for k in EVIDENCE_FIELDS if k != "logged_first_run_s"}
        return replace(row, top_ops=trace.top_ops, folded=trace.folded, **evidence,
                       logged_first_run_s=trace.first_run_s if trace.first_run_inside is not None else None)
    if row.ok:
        return replace(row, status="failed", error=f"traced run: {trace.error}")
    return row
