"""Explain the remote rows of a report: remote against in-process, the feed and fetch costs, what crossed tasks."""

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.compare_view import holds_data
from tfgraphs.findings.regimes import regime_sentences
from tfgraphs.records.judge import FEWEST, judge
from tfgraphs.spec import network
from tfgraphs.spec.common import later_runs_option
from tfgraphs.spec.remote import task_of
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s


def has_remote(report):
    """True when the report holds rows measured on a grpc:// target or fetching a sum."""
    return any(r.remote or r.returns == "sum" for r in report.rows)


def _by_key(rows):
    """{(variant, remote, fetch): row} of the ok rows."""
    return {(r.variant, r.remote, r.returns or "output"): r for r in rows if r.ok}


def _signed_s(seconds):
    """'+5.0 ms', '-1.20 s': a shift in seconds, signed."""
    return ("+" if seconds >= 0 else "") + fmt_s(seconds)


def _told(v, option, unit=None):
    """The verdict as printed; below the fewest samples its test needs, the outcome alone (it names n: there is no
    interval to give) and what to run: '...; run with --runs 4 or more to tell'."""
    if min(v.n_a, v.n_b) >= FEWEST[v.method]:
        return v.says(unit)
    return f"{v.phrase(unit)}; run with {option} {FEWEST[v.method]} or more to tell"


def _excess_verdict(a, b):
    """First-run excesses of two rows, one per fresh worker each: as a ratio while every one is positive, else as a
    shift in seconds (an excess may be zero or negative)."""
    if all(v > 0 for v in (*a, *b)):
        return judge(a, b)
    return judge(a, b, scale="shift")


def _with_local(rows):
    """(remote row, the same variant and fetch in-process) for every remote row that has one."""
    got = _by_key(rows)
    return [(r, got[(v, False, f)]) for (v, remote, f), r in got.items() if remote and (v, False, f) in got]


@rests_on("runs_s")
def remote_over_local(rows, more="--trials"):
    """Per variant and fetch: remote later runs against in-process later runs, one median a worker."""
    said = []
    for r, local in _with_local(rows):
        v = judge(r.later_medians_s, local.later_medians_s)
        said.append(judged(f"{r.label}: later runs took {fmt_s(r.later_median_s)} median against "
                           f"{fmt_s(local.later_median_s)} in-process: {_told(v, more)}.", v))
    return said


@rests_on("runs_s")
def feed_cost(rows, more="--trials"):
    """Per fetch and place: a variant fed per run against one loaded once, one median later run a worker."""
    said, got = [], _by_key(rows)
    for remote in (True, False):
        for fetch in ("output", "sum"):
            here = [r for (v, rem, f), r in got.items() if rem == remote and f == fetch]
            fed = next((r for r in here if VARIANTS[r.variant].fed_per_run), None)
            once = next((r for r in here if VARIANTS[r.variant].loaded_once), None)
            if fed is None or once is None:
                continue
            v = judge(fed.later_medians_s, once.later_medians_s)
            where = "remote" if remote else "in-process"
            # In-process nothing is sent: session.py hands the array to TensorFlow in memory.
            verb = "sending" if remote else "feeding"
            sent = f", {verb} {fed.bytes_fed_per_run:,} bytes each time" if fed.bytes_fed_per_run else ""
            sent += "" if remote else _handed(fed)
            told = ("feeding cost more per run, " if v.larger else "the fed variant was faster, " if v.smaller else
                    "")
            said.append(judged(f"Per-run feed cost {where} (fetch {fetch}): {fed.variant} "
                               f"{fmt_s(fed.later_median_s)} against {once.variant} {fmt_s(once.later_median_s)} "
                               f"median{sent}: {told}{_told(v, more)}.", v))
    return said


def _handed(fed):
    """How an in-process feed reached TensorFlow, from where this run's array started; '' where not recorded."""
    k = fed.fed_address_mod_64
    if k is None or not fed.bytes_fed_per_run:
        return ""
    return (f" from data {k} bytes past a 64-byte boundary (TF_NewTensor, tensorflow/c/tf_tensor.cc, uses an array "
            f"in place when its address is a multiple of EIGEN_MAX_ALIGN_BYTES, a constant of the build, and copies "
            f"it otherwise; `tfgraphs pitfalls --lessons feed-alignment` times the two)")


@rests_on("partition_computes")
def fetch_cost(rows, more="--trials"):
    """Per variant and place: fetching the whole output against fetching its sum, when both graphs compute."""
    said, got = [], _by_key(rows)
    for (variant, remote, fetch), whole in got.items():
        total = got.get((variant, remote, "sum"))
        if fetch != "output" or total is None:
            continue
        if not total.partition_computes["Conv2D"]:
            # A scalar fetch can fold where the whole output does not: the difference is then the network itself.
            said.append(f"{variant} {'remote' if remote else 'in-process'}: fetching the sum folded the network "
                        f"(no Conv2D in the graph that ran; partition graphs), so its {fmt_s(total.later_median_s)} "
                        f"later runs compute nothing and say nothing about the cost of fetching.")
            continue
        v = judge(whole.later_medians_s, total.later_medians_s)
        where = "remote" if remote else "in-process"
        said.append(judged(f"Fetch cost of {variant} {where}: the whole output ({whole.bytes_fetched_per_run:,} "
                           f"bytes) took {fmt_s(whole.later_median_s)} per run against "
                           f"{fmt_s(total.later_median_s)} for its sum ({total.bytes_fetched_per_run:,} bytes): "
                           f"{_told(v, more)}.", v))
    return said


@rests_on("first_runs_s", "runs_s")
def first_run_extra(rows, more="--trials"):
    """Per variant and fetch: what the remote first run paid beyond its later runs, against in-process, one sample
    per fresh worker a side."""
    said, got = [], _by_key(rows)
    for (variant, remote, fetch), r in got.items():
        local = got.get((variant, False, fetch))
        if not remote or local is None or r.first_run_excess_s is None or local.first_run_excess_s is None:
            continue
        v = _excess_verdict(r.first_run_excesses_s, local.first_run_excesses_s)
        head = (f"{r.label}: the first run paid {fmt_s(r.first_run_excess_s)} beyond the later runs against "
                f"{fmt_s(local.first_run_excess_s)} in-process")
        # Sending the graph is offered as the reason only for an extra that was measured.
        why = (f"; remotely the first run also sends the {r.graph_bytes:,}-byte GraphDef to the server"
               if v.larger else "")
        said.append(judged(f"{head}: {_told(v, more, _signed_s)}{why}.", v))
    return said


def between_tasks(rows, batch, dtype):
    """Per two-task row: where X lived, the bytes expected to cross tasks per run, and what a traced run saw."""
    said = []
    for r in rows:
        if not r.ok or not r.network_device:
            continue
        apart = task_of(r.data_device) != task_of(r.network_device)
        expected = network.data_bytes(batch, dtype) if apart and VARIANTS[r.variant].loaded_once else 0
        seen = r.traced_between_tasks_bytes
        check = ("the same as a traced run's RecvTensor bytes" if seen == expected else
                 f"but a traced run reported {seen:,} bytes received from another task")
        said.append(f"{r.label}: X lived on {r.data_device}, the network ran on {r.network_device}; "
                    f"{expected:,} bytes should cross between the tasks per run, {check}.")
    return said



def sentences(report):
    """Every remote sentence this report's numbers support."""
    rows, c = report.rows, report.config
    # A summed fetch is an op added to the graph, so folding may replace it with the rest: said as for the output.
    summed = [r for r in rows if r.ok and r.returns == "sum" and holds_data(r, report)]
    # compare's later runs (and so the first run's excess over them) may come from its --full-trials workers alone.
    more = later_runs_option(c)
    return (regime_sentences(summed) + remote_over_local(rows, more=more) + feed_cost(rows, more=more)
            + fetch_cost(rows, more=more) + first_run_extra(rows, more=more)
            + between_tasks(rows, c.batch, c.dtype))


def answer(report):
    """At most five lines: two remote rows' first and later runs against the same rows in-process, and their bytes."""
    said = _remote_answer([r for r in report.rows if r.ok])
    return said[:2] + ([f"And {len(said) - 2} more remote rows: in the tables below."] if len(said) > 2 else [])


@rests_on("first_run_s", "runs_s", "bytes_fed_per_run", "bytes_fetched_per_run")
def _remote_answer(rows):
    said = []
    for r, local in _with_local(rows):
        said.append(f"{r.label}: first run {fmt_s(r.first_run_s)}, later {fmt_s(r.later_median_s)} median (in-process "
                    f"{fmt_s(local.first_run_s)}, {fmt_s(local.later_median_s)}); a run fed {r.bytes_fed_per_run:,} "
                    f"bytes and fetched {r.bytes_fetched_per_run:,}.")
    return said
