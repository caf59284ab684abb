"""Explain the remote rows of a report: remote against in-process, the feed and fetch costs, what crossed tasks."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import MIN_FIRST_RUNS, between, first_runs
from tfgraphs.spec import network
from tfgraphs.spec.remote import task_of
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import fmt_s


def has_remote(report):
    """True when the report holds rows measured on a grpc:// target or fetching a sum."""
    return any(r.remote or r.fetch == "sum" for r in report.rows)


def _by_key(rows):
    """{(variant, remote, fetch): row} of the ok rows."""
    return {(r.variant, r.remote, r.fetch or "output"): r for r in rows if r.ok}


def _more(delta):
    return f"{fmt_s(abs(delta))} {'more' if delta >= 0 else 'less'}"


def _apart(d):
    return f"beyond a spread of {fmt_s(d.spread)}" if d.real else f"no measurable difference against a spread of {fmt_s(d.spread)}"


def _with_local(rows):
    """(remote row, the same variant and fetch in-process) for every remote row that has one."""
    got = _by_key(rows)
    return [(r, got[(v, False, f)]) for (v, remote, f), r in got.items() if remote and (v, False, f) in got]


@rests_on("runs_s")
def remote_over_local(rows):
    """Per variant and fetch: remote later runs over in-process later runs, judged against both spreads."""
    said = []
    for r, local in _with_local(rows):
        d = between(r.runs_s, local.runs_s)
        ratio = f"{r.later_median_s / local.later_median_s:.2f}x, " if d.real else ""
        said.append(f"{r.label}: later runs took {fmt_s(r.later_median_s)} median against {fmt_s(local.later_median_s)} "
                    f"in-process, {ratio}{_apart(d)}.")
    return said


@rests_on("runs_s")
def feed_cost(rows):
    """Per fetch and place: a variant fed per run against one loaded once, judged against both spreads."""
    said, got = [], _by_key(rows)
    for remote in (True, False):
        for fetch in ("output", "sum"):
            here = [r for (v, rem, f), r in got.items() if rem == remote and f == fetch]
            fed = next((r for r in here if VARIANTS[r.variant].fed_per_run), None)
            once = next((r for r in here if VARIANTS[r.variant].loaded_once), None)
            if fed is None or once is None:
                continue
            d = between(fed.runs_s, once.runs_s)
            where = "remote" if remote else "in-process"
            sent = f", sending {fed.bytes_fed_per_run:,} bytes each time" if fed.bytes_fed_per_run else ""
            verdict = (f"feeding cost {fmt_s(d.delta)} per run{sent}, {_apart(d)}" if d.larger else
                       f"{_apart(d)}{sent}" if not d.real else f"the fed variant was faster by {fmt_s(-d.delta)}, {_apart(d)}")
            said.append(f"Per-run feed cost {where} (fetch {fetch}): {fed.variant} {fmt_s(fed.later_median_s)} against "
                        f"{once.variant} {fmt_s(once.later_median_s)} median: {verdict}.")
    return said


@rests_on("partition_computes")
def fetch_cost(rows):
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
        d = between(whole.runs_s, total.runs_s)
        where = "remote" if remote else "in-process"
        said.append(f"Fetch cost of {variant} {where}: the whole output ({whole.bytes_fetched_per_run:,} bytes) took "
                    f"{fmt_s(whole.later_median_s)} per run against {fmt_s(total.later_median_s)} for its sum "
                    f"({total.bytes_fetched_per_run:,} bytes), {_more(d.delta)}, {_apart(d)}.")
    return said


@rests_on("first_runs_s", "runs_s")
def first_run_extra(rows):
    """Per variant and fetch: what the remote first run paid beyond its later runs, against in-process, judged only
    by the first-run rule."""
    said, got = [], _by_key(rows)
    for (variant, remote, fetch), r in got.items():
        local = got.get((variant, False, fetch))
        if not remote or local is None or r.first_run_excess_s is None or local.first_run_excess_s is None:
            continue
        d = first_runs(r.first_run_excesses_s, local.first_run_excesses_s)
        head = (f"{r.label}: the first run paid {fmt_s(r.first_run_excess_s)} beyond the later runs against "
                f"{fmt_s(local.first_run_excess_s)} in-process")
        if not d.judged:
            said.append(f"{head}; {d.samples} first runs, one per fresh worker, too few to call a difference "
                        f"(--trials {MIN_FIRST_RUNS} judges it).")
            continue
        verdict = (f"beyond the spread of first runs ({fmt_s(d.spread)}, {d.samples})" if d.real else
                   f"no measurable difference against the spread of first runs ({fmt_s(d.spread)}, {d.samples})")
        # Sending the graph is offered as the reason only for an extra that was measured.
        why = (f"; remotely the first run also sends the {r.graph_bytes:,}-byte GraphDef to the server"
               if d.real and d.delta > 0 else "")
        said.append(f"{head}, {_more(d.delta)}, {verdict}{why}.")
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
    return (remote_over_local(rows) + feed_cost(rows) + fetch_cost(rows) + first_run_extra(rows)
            + between_tasks(rows, c["batch"], c["dtype"]))


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
