"""Explain the remote rows of compare's results: remote against in-process, the feed and fetch costs, what crossed
tasks; said over the rows (of compare's page, or of explain's)."""

from dataclasses import dataclass, replace

from contextlib import nullcontext

from tfgraphs.findings.compare import holds_data, regime_sentences
from tfgraphs.findings.evidence import finding, has, judged, more_trials, sentences_of, together
from tfgraphs.records.judge import CANNOT_TELL, adjusted, judge
from tfgraphs.spec import network
from tfgraphs.spec.network import VARIANTS, task_of
from tfgraphs.spec.options import later_runs_option
from tfgraphs.units import fmt_s, join


SHOWN = 3   # answer lines of a page of summed rows alone


def has_remote(results):
    """True when the results hold rows measured on a grpc:// target or fetching a sum."""
    return any(r.remote or r.returns == "sum" for r in results.rows)


@dataclass(frozen=True)
class Rows:
    """The view remote's findings are said over: rows, and the option that gets more samples of them."""

    rows: tuple
    more: str = "--trials"

    def with_evidence(self, names):
        """The view over the rows that hold every field in names."""
        return replace(self, rows=tuple(r for r in self.rows if has(r, names)))


def sentences_of_rows(findings, rows, more="--trials"):
    """What the remote findings given (functions of this module) say over rows, more naming the option that gets more
    samples."""
    return sentences_of([say.finding for say in findings], Rows(tuple(rows), more))


def _by_key(rows):
    """{(variant, remote, fetch): row} of the ok rows."""
    return {(r.variant, r.remote, r.returns or "output"): r for r in rows if r.ok}


def _signed_s(seconds):
    """'+5.0 ms', '-1.20 s': a shift in seconds, signed."""
    return ("+" if seconds >= 0 else "") + fmt_s(seconds)


def _verdict_text(v, option, unit=None):
    """The verdict as printed; where its test could not reject at these n, the outcome alone (it names n: there is no
    interval to give) and what to run, as the judge counts it: '...; run with --runs 4 or more to tell'."""
    if not (v.outcome == CANNOT_TELL and v.need):
        return v.says(unit)
    return f"{v.phrase(unit)}{more_trials(v, option=option)} to tell"


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


@finding("remote.remote_over_local", ("runs_s",))
def remote_over_local(view):
    """Per variant and fetch: remote later runs against in-process later runs, one median a worker."""
    sentences = []
    for r, local in _with_local(view.rows):
        v = judge(r.later_medians_s, local.later_medians_s)
        sentences.append(judged(f"{r.label}: later runs took {fmt_s(r.later_median_s)} median against "
                                f"{fmt_s(local.later_median_s)} in-process: {_verdict_text(v, view.more)}.", v))
    return sentences


@finding("remote.feed_cost", ("runs_s",))
def feed_cost(view):
    """Per fetch and place: a variant fed per run against one loaded once, one median later run a worker."""
    sentences, got = [], _by_key(view.rows)
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
            # Two graphs in two workers: the gap holds feeding and whatever else the two runs do apart.
            cost = ("the fed variant's runs took longer, " if v.larger else
                    "the fed variant was faster, " if v.smaller else "")
            sentences.append(judged(f"Per-run feed cost {where} (fetch {fetch}): {fed.variant} "
                                    f"{fmt_s(fed.later_median_s)} against {once.variant} "
                                    f"{fmt_s(once.later_median_s)} median{sent}: {cost}"
                                    f"{_verdict_text(v, view.more)}.", v))
    return sentences


def _handed(fed):
    """How an in-process feed reached TensorFlow, from where this run's array started; '' where not recorded."""
    k = fed.fed_address_mod_64
    if k is None or not fed.bytes_fed_per_run:
        return ""
    # Only the workers that measure every phase record it: say which, and each offset they saw.
    seen = [t.fed_address_mod_64 for t in fed.trials if t.fed_address_mod_64 is not None]
    if seen:
        k = " or ".join(str(v) for v in sorted(set(seen)))
    where = (f", in the {'worker' if len(seen) == 1 else f'{len(seen)} workers'} that recorded it," if seen else "")
    return (f"{where} from data {k} bytes past a 64-byte boundary (TF_NewTensor, tensorflow/c/tf_tensor.cc, uses an "
            f"array in place when its address is a multiple of EIGEN_MAX_ALIGN_BYTES, a constant of the build, and "
            f"copies it otherwise; `tfgraphs pitfalls --lessons feed-alignment` times the two)")


@finding("remote.fetch_cost", ("partition_computes",))
def fetch_cost(view):
    """Per variant and place: fetching the whole output against fetching its sum, when both graphs compute."""
    sentences, got = [], _by_key(view.rows)
    for (variant, remote, fetch), whole in got.items():
        total = got.get((variant, remote, "sum"))
        if fetch != "output" or total is None:
            continue
        if not total.partition_computes["Conv2D"]:
            # A scalar fetch can fold where the whole output does not: the difference is then the network itself.
            sentences.append(f"{variant} {'remote' if remote else 'in-process'}: fetching the sum folded the "
                             f"network (no Conv2D in the graph that ran; partition graphs), so its "
                             f"{fmt_s(total.later_median_s)} later runs compute nothing and say nothing about the "
                             f"cost of fetching.")
            continue
        v = judge(whole.later_medians_s, total.later_medians_s)
        where = "remote" if remote else "in-process"
        sentences.append(judged(f"Fetch cost of {variant} {where}: the whole output "
                                f"({whole.bytes_fetched_per_run:,} bytes) took {fmt_s(whole.later_median_s)} per run "
                                f"against {fmt_s(total.later_median_s)} for its sum "
                                f"({total.bytes_fetched_per_run:,} bytes): {_verdict_text(v, view.more)}.", v))
    return sentences


def _share(ratio):
    """The part of the whole output's run that a whole-over-sum ratio leaves to fetching: 1.25 -> '20%'."""
    return f"{max(0.0, 1 - 1 / ratio):.0%}"


def _fetch_part(v, option):
    """What the judge's whole-over-sum verdict says of the part fetching takes of the whole output's later runs, or
    the option to run more of (--trials, --full-trials) where it cannot tell."""
    if v.same and v.bounded:
        return f"; so fetching the output is at most {_share(v.high)} of them"
    if v.larger:
        ends = f", {v.confidence} {_share(v.low)} to {_share(v.high)}" if v.bounded else ""
        return f"; so fetching the output, less the sum's own work, is {_share(v.effect)} of them{ends}"
    if v.smaller:
        return "; the sum's runs took longer, so fetching the output is not what they spend"
    return more_trials(v, option=option)


@finding("remote.fetch_answer", ("runs_s", "bytes_fetched_per_run"), headline=True,
         template="Fetching against computing, {variant} {place}: later runs took {time} median fetching the whole "
                  "output ({bytes} bytes) and {time} fetching its sum ({bytes} bytes): {verdict}; so fetching the "
                  "output is at most {share} of them ... / Fetching against computing: each run fetched only the "
                  "sum ({bytes} bytes), so next to none of the later runs of the rows that computed the network ({row} "
                  "{time} median) is fetching ... run with --returns output,sum ...",
         unless="no row fetched a sum, or no variant fetched both and computed the network both ways (folding "
                "replaced it)")
def fetch_answer(view):
    """Per variant and place that fetched both and computed the network both ways: how much of the whole output's
    later runs fetching it takes, by the judge; where only sums ran, the run that would tell."""
    got = _by_key(view.rows)
    summed = [(v, remote) for (v, remote, f) in got if f == "sum"]
    pairs = [(got[(v, remote, "output")], got[(v, remote, "sum")]) for v, remote in summed
             if (v, remote, "output") in got]
    if summed and not pairs:
        rows = [got[key + ("sum",)] for key in summed]
        # Only a row whose graph that ran still held Conv2D computed the network on its later runs.
        computed = [r for r in rows if (r.partition_computes or {}).get("Conv2D")]
        said = (f"Fetching against computing: each run fetched only the sum ({rows[0].bytes_fetched_per_run:,} bytes), "
                f"so next to none of the later runs of the rows that computed the network ("
                f"{join(f'{r.label} {fmt_s(r.later_median_s)}' for r in computed)} median) is fetching: they are the "
                f"rest of a run, computing the network and whatever it feeds or moves; " if computed else
                f"Fetching against computing: this run fetched only the sum of {join(v for v, _ in summed)} "
                f"({rows[0].bytes_fetched_per_run:,} bytes a run) and no row of it computed the network; ")
        return [said + "run with --returns output,sum to set the whole output's later runs beside them, and so tell "
                       "how much of them fetching it takes."]
    sentences = []
    for whole, total in pairs:
        if not (whole.partition_computes.get("Conv2D") and total.partition_computes.get("Conv2D")):
            continue   # a folded run computes nothing (fetch_cost says so), and an unread one may not
        v = judge(whole.later_medians_s, total.later_medians_s)
        sentences.append(judged(
            f"Fetching against computing, {whole.variant} {'remote' if whole.remote else 'in-process'}: later runs "
            f"took {fmt_s(whole.later_median_s)} median fetching the whole output ({whole.bytes_fetched_per_run:,} "
            f"bytes) and {fmt_s(total.later_median_s)} fetching its sum ({total.bytes_fetched_per_run:,} bytes): "
            f"{v.brief()}{_fetch_part(v, view.more)}.", v))
    return sentences


@finding("remote.first_run_extra", ("first_runs_s", "runs_s"))
def first_run_extra(view):
    """Per variant and fetch: what the remote first run paid beyond its later runs, against in-process, one sample
    per fresh worker a side."""
    sentences, got = [], _by_key(view.rows)
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
        sentences.append(judged(f"{head}: {_verdict_text(v, view.more, _signed_s)}{why}.", v))
    return sentences


def between_tasks(rows, batch, dtype):
    """Per two-task row: where X lived, the bytes expected to cross tasks per run, and what a traced run saw."""
    sentences = []
    for r in rows:
        if not r.ok or not r.network_device:
            continue
        apart = task_of(r.data_device) != task_of(r.network_device)
        expected = network.data_bytes(batch, dtype) if apart and VARIANTS[r.variant].loaded_once else 0
        seen = r.traced_between_tasks_bytes
        check = ("the same as a traced run's RecvTensor bytes" if seen == expected else
                 f"but a traced run reported {seen:,} bytes received from another task")
        sentences.append(f"{r.label}: X lived on {r.data_device}, the network ran on {r.network_device}; "
                         f"{expected:,} bytes should cross between the tasks per run, {check}.")
    return sentences



# Listed in docs/findings.md with no description (about="").
@finding("remote._remote_answer", ("first_run_s", "runs_s", "bytes_fed_per_run", "bytes_fetched_per_run"), about="")
def remote_answer(view):
    """Per remote row: its first and later runs against the same row in-process, and the bytes a run moved."""
    sentences = []
    for r, local in _with_local(view.rows):
        sentences.append(f"{r.label}: first run {fmt_s(r.first_run_s)}, later {fmt_s(r.later_median_s)} median "
                         f"(in-process {fmt_s(local.first_run_s)}, {fmt_s(local.later_median_s)}); a run fed "
                         f"{r.bytes_fed_per_run:,} bytes and fetched {r.bytes_fetched_per_run:,}.")
    return sentences


def answer_and_findings(results):
    """(the answer, the findings) of the remote rows: at most five lines, two remote rows' first and later runs
    against the same rows in-process and their bytes; then every remote sentence the results' numbers support."""
    rows, c = results.rows, results.config
    heads = together([remote_answer.finding], lambda: Rows(tuple(r for r in rows if r.ok), "--trials"))
    answer = heads[:2] + ([f"And {len(heads) - 2} more remote rows: in the tables below."] if len(heads) > 2 else [])
    # A summed fetch is an op added to the graph, so folding may replace it with the rest: said as for the output.
    summed = [r for r in rows if r.ok and r.returns == "sum" and holds_data(r, results)]
    # compare's later runs (and so the first run's excess over them) may come from its --full-trials workers alone.
    folding, ok = regime_sentences(summed), Rows(tuple(r for r in rows if r.ok), later_runs_option(c))
    # Without a remote row, what fetching the whole output costs the later runs opens the page (the question a summed
    # fetch answers), then what folding did to the summed graphs.
    fetching = [] if answer else [fetch_answer.finding]
    family = [v for s in sentences_of(fetching, ok) for v in getattr(s, "verdicts", ())]
    # The answer's verdicts are one family, and the findings restate its comparisons under the same correction.
    with adjusted(family) if len(family) > 1 else nullcontext():
        if not answer:
            answer, folding = sentences_of(fetching, ok) + folding[:SHOWN], folding[SHOWN:]
        findings = sentences_of_rows([remote_over_local, feed_cost, fetch_cost, first_run_extra], rows,
                                     later_runs_option(c))
    return answer, folding + findings + between_tasks(rows, c.batch, c.dtype)
