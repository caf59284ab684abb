"""The seed network's jobs: compare, explain, sweep and pitfalls. Which variants to refuse, the plan, and every chosen
variant measured in fresh workers for K trials in rotating order (the first `full_trials` measuring every phase, the
others up to the first run and, where the config says, its later runs), in-process or on a grpc:// target, on a
fresh server per worker when tfgraphs starts them. compare is this job as it is; explain and sweep build theirs from
its parts; pitfalls runs each lesson on the network's variants."""

from dataclasses import fields, replace

from tfgraphs.errors import UsageError
from tfgraphs.jobs import runner, servers
from tfgraphs.jobs.runner import Job, Plan
from tfgraphs.records.explain import attributions
from tfgraphs.records.results import CompareResults, ExplainResults, PitfallsResults, SweepResults
from tfgraphs.records.results import EVIDENCE_FIELDS, LessonRun, Measurement, Row
from tfgraphs.records.schema import read_worker
from tfgraphs.records.sweep import fit_all
from tfgraphs.spec import network
from tfgraphs.spec.pitfalls import DTYPE, LESSONS
from tfgraphs.spec.network import VARIANTS, parse_target, task_label


def refusals(config):
    """{variant: reason} for embedded variants past a 2 GiB limit (the tensor's or the serialized GraphDef's)."""
    found = {v: network.limit_refusal(v, config.batch, config.dtype) for v in config.variants}
    return {v: reason for v, reason in found.items() if reason}


def runnable(config, refused):
    """The variants of config that are not refused."""
    return [v for v in config.variants if v not in refused]


def plan(config):
    """Refused variants and remote rows, and one worker per trial of every other row."""
    check_remote(config)
    refused = refusals(config)
    ok = runnable(config, refused)
    refused.update(remote_refusals(config, ok))
    rows = [(v, t, f) for v in ok for t, f in config.placements() if not (t and (v, f) in refused)]
    return Plan(refused, tuple(refused.values()), workers=len(rows) * config.trials,
                seed_workers=tuple((v, config.batch, config.dtype) for v in ok))


def measure(config, refused, progress, timeout=None, prefix=""):
    """(rows, documents): a row per variant and placement, refused ones failed with the reason; prefix starts labels."""
    keys = [(v, t, f) for v in config.variants for t, f in config.placements()]

    def why(v, t, f):
        return refused.get(v) or (refused.get((v, f)) if t else None)
    tasks = {key: config.task(key[0], target=key[1], returns=key[2]) for key in keys if not why(*key)}
    docs, ran = runner.run_trials(list(tasks.values()), config.trials, lambda t: prefix + task_label(t), progress,
                                  timeout, run=worker_runner(config), full=config.full_trials)
    rows = [asked_place(Row.refused(key[0], why(*key)) if why(*key)
                        else Row.from_trials(key[0], [Measurement.from_worker(d) for d in docs[tasks[key]]]), *key[1:])
            for key in keys]
    activations = int(network.activation_bytes(config.batch, config.dtype))
    return [replace(r, activation_bytes=activations) for r in rows], ran


def asked_place(row, target, returns):
    """row, placed where its task asked when no worker said so (a refused row, or one whose every trial failed)."""
    if not target or row.target is not None:
        return row
    return replace(row, target=target, returns=row.returns or returns)


def run(config, plan, progress, timeout=None):
    """compare's results: every variant the plan did not refuse, measured."""
    rows, ran = measure(config, plan.refused, progress, timeout)
    tf_version, machine = runner.envelope(ran)
    return CompareResults(config, tuple(rows), tf_version=tf_version, machine=machine)


COMPARE = Job(plan, run)


# Where the network and X go in the two-task cluster `local:ps,worker`.
NETWORK_DEVICE = "/job:worker/task:0"
PLACES = {"ps": "/job:ps/task:0", "worker": NETWORK_DEVICE}


def check_remote(config):
    """Refuse remote options that need one another, and an existing server that does not answer, before any work."""
    where = parse_target(config.target)
    place = next(f for f in fields(config) if f.name == "place")
    if config.place != place.default and len(where.jobs) < 2:
        raise UsageError("--place needs --target local:ps,worker, the only cluster with a second task")
    if not config.baseline and not where.remote:
        raise UsageError("--no-baseline needs --target: without one only in-process rows are measured")
    if where.remote and not where.starts_servers:
        servers.check_reachable(where, config.connect_timeout)


def remote_refusals(config, variants):
    """{(variant, returns): reason} for remote runs whose GraphDef, feed or fetched result exceeds one gRPC message."""
    if not parse_target(config.target).remote:
        return {}
    found = {(v, r): network.remote_refusal(v, config.batch, config.dtype, r) for v in variants for r in config.returns}
    return {key: reason for key, reason in found.items() if reason}


def worker_runner(config):
    """run(task, label, progress, timeout): in-process tasks as they are, remote ones on their server."""
    target = parse_target(config.target)

    def run(task, label, progress, timeout=None):
        if task.target is None:
            return runner.run_worker(task, label, progress, timeout)
        if target.starts_servers:
            return _on_started(task, target, config.place, label, progress, timeout)
        return runner.run_worker(replace(task, target=target.spec), label, progress, timeout,
                                 abort=servers.watch_address(target.host, target.port))
    return run


def _on_started(task, target, place, label, progress, timeout):
    """Start the task's own servers, run its worker on them, and end them however the worker ends."""
    try:
        with servers.started(target.jobs) as cluster:
            if len(target.jobs) > 1:
                task = replace(task, target=cluster.targets["worker"], network_device=NETWORK_DEVICE,
                               data_device=PLACES[place])
            else:
                task = replace(task, target=cluster.targets[target.jobs[0]])
            return runner.run_worker(task, label, progress, timeout, abort=cluster.gone)
    except servers.ServerError as exc:
        progress.skip(label, str(exc))
        return {"status": "failed", "error": str(exc)}


# explain: every variant under each session preset, timed, then traced in separate workers.
SINGLE_THREAD_VARIANT = "placeholder"   # the network without X in it: nothing to fold, evaluated as the folder would


def row_groups(config, refused):
    """(variant, target) of every row group: in-process (target None) unless --no-baseline, then remote."""
    # A variant refused outright, or refused only remotely, loses those groups.
    targets = list(dict.fromkeys(t for t, _ in config.placements()))
    return [(v, t) for v in runnable(config, refused) for t in targets if not (t and (v, "output") in refused)]


def explain_plan(config):
    """Refused variants are left out: the ablation of a graph that cannot be built (or sent) says nothing."""
    check_remote(config)
    refused = refusals(config)
    refused.update(remote_refusals(config, runnable(config, refused)))
    groups = row_groups(config, refused)
    return Plan(refused, tuple(refused.values()), workers=len(groups) * len(config.presets) * (config.trials + 1) + 1,
                seed_workers=tuple((v, config.batch, config.dtype) for v in dict.fromkeys(v for v, _ in groups)))


def explain_run(config, plan, progress, timeout=None, trace_dir=None, tensorboard_dir=None):
    """Timed workers for every variant x target x preset, then one traced worker each, kept apart from the timing."""
    groups = row_groups(config, plan.refused)
    run_one = worker_runner(config)
    timed = [config.task(v, preset=p, target=t) for v, t in groups for p in config.presets]
    docs, ran = runner.run_trials(timed, config.trials, task_label, progress, timeout, run=run_one)
    traced = _traced(config, groups, run_one, progress, timeout, trace_dir, tensorboard_dir)
    ran.extend(traced.values())
    rows = [_explained_row(t, docs[t], Measurement.from_worker(traced[(t.variant, t.target, t.preset)])) for t in timed]
    variants = list(dict.fromkeys(v for v, _ in groups))
    single = config.task(SINGLE_THREAD_VARIANT, mode="single-thread")
    doc = runner.run_worker(single, task_label(single), progress, timeout)
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


def explain_writes(config, trace_dir, tensorboard_dir):
    """(trace files, TensorBoard folders) the traced workers may write, a refused variant's included: known before
    the plan, so an output over one is refused before any work."""
    found = [task.writes() for task in traced_tasks(config, row_groups(config, {}), trace_dir, tensorboard_dir)]
    return [p for traces, _ in found for p in traces], [board for _, board in found if board]


def _traced(config, groups, run_one, progress, timeout, trace_dir, tensorboard_dir):
    """{(variant, target, preset): document} of one traced worker each."""
    return {(task.variant, task.target, task.preset): run_one(task, task_label(task), progress, timeout)
            for task in traced_tasks(config, groups, trace_dir, tensorboard_dir)}


def _single_thread(doc):
    """What the single-threaded worker measured: its runs, or why there are none."""
    kept = ("status", "error", "first_run_s", "runs_s", "max_abs_err")
    return {"variant": SINGLE_THREAD_VARIANT, "intra_op_threads": 1, "inter_op_threads": 1,
            **{k: doc.get(k) for k in kept}}


def _explained_row(task, docs, trace):
    """A timed row with its traced run's ops; failed when the traced run failed."""
    row = asked_place(Row.from_trials(task.variant, [Measurement.from_worker(d) for d in docs], preset=task.preset),
                      task.target, task.returns)
    if trace.status == "ok":
        # The traced later run is what says whether Conv2D still ran; the logged first run, where its time went.
        evidence = {k: getattr(trace, k) for k in EVIDENCE_FIELDS if k != "logged_first_run_s"}
        return replace(row, top_ops=trace.top_ops, folded=trace.folded, **evidence,
                       logged_first_run_s=trace.first_run_s if trace.first_run_inside is not None else None)
    if row.ok:
        return replace(row, status="failed", error=f"traced run: {trace.error}")
    return row


EXPLAIN = Job(explain_plan, explain_run, writes=explain_writes)


# sweep: every variant at every batch, a line fitted to graph sizes, and the limit tried.
LIMIT_VARIANT = "constant"   # the variant whose predicted limit is put to TensorFlow


def may_probe(config, refused):
    """True when the limit probe can happen: its variant is swept at two or more batches that are not refused."""
    return LIMIT_VARIANT in config.variants and sum((b, LIMIT_VARIANT) not in refused for b in config.batches) >= 2


def sweep_plan(config):
    """Refused points; one worker per trial of every other point, and one for the limit probe when it may run."""
    parts = {b: plan(config.at(b)) for b in config.batches}
    refused = {(b, v): reason for b, p in parts.items() for v, reason in p.refused.items()}
    points = sum(p.workers for p in parts.values())
    return Plan(refused, tuple(f"batch {b:,}: {reason}" for (b, _), reason in refused.items()),
                workers=points + may_probe(config, refused) if points else 0,
                seed_workers=tuple(n for p in parts.values() for n in p.seed_workers))


def probe_limit(config, fits, progress, timeout=None):
    """Ask TensorFlow to embed X at the first batch past the predicted limit; what it said, or why it was not asked."""
    fit = next((f for f in fits if f.variant == LIMIT_VARIANT), None)
    label = f"{LIMIT_VARIANT} (limit)"
    if fit is None or fit.max_batch is None:
        progress.skip(label, f"no fitted limit for {LIMIT_VARIANT}")
        return None
    batch = fit.max_batch + 1
    out = {"variant": LIMIT_VARIANT, "batch": batch, "data_bytes": network.data_bytes(batch, config.dtype),
           "predicted_max_batch": fit.max_batch, "refused": None, "message": None, "failure": None}
    if out["data_bytes"] < network.TENSOR_LIMIT:
        # The worker asks only TensorFlow's check on a single tensor, which lets anything under 2 GiB through.
        out["failure"] = (f"X alone would be {out['data_bytes']:,} bytes, under 2 GiB, and the probe tests "
                          f"only the {network.TENSOR}, not the {network.GRAPHDEF}")
        progress.skip(label, "X would be under 2 GiB")
        return out
    task = config.at(batch).task(LIMIT_VARIANT, mode="limit")
    doc = runner.run_worker(task, f"{LIMIT_VARIANT} at batch {batch:,} (limit)", progress, timeout)
    if doc.get("status") != "ok":
        return {**out, "failure": doc.get("error")}
    return {**out, "refused": doc["refused"], "message": doc["message"], "rss_before_bytes": doc["rss_before_bytes"],
            "rss_after_bytes": doc["rss_after_bytes"]}


def sweep_run(config, plan, progress, timeout=None):
    """Measure every batch x variant the plan did not refuse, fit, then probe the limit if the plan counted it."""
    rows, ran = [], []
    for batch in config.batches:
        refused = {v: reason for (b, v), reason in plan.refused.items() if b == batch}
        part, docs = measure(config.at(batch), refused, progress, timeout, prefix=f"batch {batch:,} ")
        rows += [replace(r, batch=batch) for r in part]
        ran += docs
    fits = fit_all(rows, config.variants)
    probe = probe_limit(config, fits, progress, timeout) if may_probe(config, plan.refused) else None
    tf_version, machine = runner.envelope(ran)
    return SweepResults(config, tuple(rows), tf_version=tf_version, machine=machine, fits=tuple(fits),
                        tf_error=probe)


SWEEP = Job(sweep_plan, sweep_run)


# pitfalls: each lesson on each of its variants, in a fresh worker, in the order spec.pitfalls names them.
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


def pitfalls_plan(config):
    """Refuse an empty selection; refuse each lesson whose embedded X would pass 2 GiB."""
    pairs = config.pairs()
    if not pairs:
        raise UsageError(f"no lesson of {','.join(config.lessons)} runs any of the variants "
                         f"{','.join(config.variants)}; see --help for each lesson's variants")
    refused = {}
    for lesson, variant in pairs:
        reason = network.limit_refusal(variant, config.batch, DTYPE, copies=embedded_copies(lesson, variant),
                                       label=f"{lesson} {variant}")
        if reason:
            refused[(lesson, variant)] = reason
    runnable = [p for p in pairs if p not in refused]
    sized = tuple((sized_as(*p), config.batch, DTYPE) for p in runnable)
    return Plan(refused, tuple(refused.values()), workers=len(runnable), seed_workers=sized)


def pitfalls_run(config, plan, progress, timeout=None):
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


PITFALLS = Job(pitfalls_plan, pitfalls_run)
