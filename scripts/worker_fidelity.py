"""Do forked workers measure what fresh ones do? Both interleaved, each phase judged forked against fresh.

    python scripts/worker_fidelity.py                       # 8 of each per variant at batch 6000 (about 5 minutes)
    python scripts/worker_fidelity.py --workers 4 --batch 600 --json fidelity.json

A forked worker comes from a process that imported TensorFlow and did nothing else (tfgraphs.processes); a fresh
one imports TensorFlow itself. Each round runs every variant once each way, in an order that rotates by round.
"""

import argparse
import json
import statistics
import sys
from contextlib import nullcontext

from tabulate import tabulate

from tfgraphs import processes
from tfgraphs.jobs import runner
from tfgraphs.jobs.runner import rotated
from tfgraphs.machine import machine_info
from tfgraphs.records.judge import judge
from tfgraphs.spec.network import SeedTask
from tfgraphs.units import fmt_bytes, fmt_s

MARGIN = 1.10   # forked is taken for fresh where every phase is within 10% of what it is part of
# The phases judged: a worker's value of each, how it is shown, and what its 10% is of: itself, or the time to the
# first result (build + session + first run), of which build and session are the smallest parts.
PHASES = {"build": (lambda d: d["build_s"], fmt_s, "first result"),
          "session": (lambda d: d["session_s"], fmt_s, "first result"),
          "first run": (lambda d: d["first_run_s"], fmt_s, "itself"),
          "later runs (median)": (lambda d: statistics.median(d["runs_s"]), fmt_s, "itself"),
          "peak memory": (lambda d: d["peak_rss_bytes"], fmt_bytes, "itself")}
STARTS = (processes.FORKED_START, processes.FRESH_START)


def measure(variants, workers, batch, runs, progress):
    """{(variant, start): [worker documents]}, the starts and variants interleaved round by round."""
    docs = {(v, s): [] for v in variants for s in STARTS}
    with processes.workers(fork=True):
        for round_ in range(workers):
            for variant in rotated(variants, round_):
                for start in rotated(STARTS, round_):
                    task = SeedTask(variant=variant, batch=batch, runs=runs)
                    # Forked from the one server of the outer scope; a fresh worker in a scope that forks none.
                    forks = start == processes.FORKED_START
                    with nullcontext() if forks else processes.workers(fork=False):
                        doc = runner.run_worker(task, f"{variant} {start} {round_ + 1}/{workers}", progress)
                    if doc.get("status") != "ok":
                        raise SystemExit(f"worker_fidelity.py: {variant} {start}: {doc.get('error')}")
                    docs[variant, doc["worker_start"]].append(doc)
    return docs


def first_result_s(doc):
    """The time to the first result: build, session, init and first run."""
    return sum(doc.get(k) or 0.0 for k in ("build_s", "session_s", "init_s", "first_run_s"))


def judged(docs, variants):
    """One line per phase and variant: the medians forked and fresh, the judge's verdict of forked over fresh, and
    whether the difference's 95% interval lies within MARGIN of what the phase is part of."""
    lines = []
    for phase, (value, show, of) in PHASES.items():
        for v in variants:
            forked, fresh = ([value(d) for d in docs[v, s]] for s in STARTS)
            verdict = judge(forked, fresh, margin=MARGIN)
            if of == "itself":
                inside, size = within(verdict), f"±{MARGIN - 1:.0%} of itself"
            else:
                budget = (MARGIN - 1) * statistics.median(first_result_s(d) for d in docs[v, STARTS[1]])
                shift = judge(forked, fresh, scale="shift", margin=budget)
                inside = shift.bounded and -budget <= shift.low and shift.high <= budget
                size = f"±{fmt_s(budget)}, 10% of first result (difference {shift.ends(fmt_s)})"
            lines.append({"phase": phase, "variant": v, "forked": statistics.median(forked),
                          "fresh": statistics.median(fresh), "verdict": verdict.to_dict(), "within": inside,
                          "size": size, "says": verdict.brief(), "shown": show})
    return lines


def within(verdict):
    """Whether the whole 95% interval of a ratio lies inside x1/MARGIN to xMARGIN (a difference the test finds
    inside it, such as x1.00 to x1.01, is one this size does not count)."""
    return verdict.bounded and 1 / MARGIN <= verdict.low and verdict.high <= MARGIN


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="numpy,constant,placeholder")
    p.add_argument("--workers", type=int, default=8, help="workers of each start per variant (default 8)")
    p.add_argument("--batch", type=int, default=6000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--json", help="also write every worker's document and every verdict here")
    p.add_argument("--from", dest="saved", metavar="JSON", help="judge the workers a --json of this script saved")
    args = p.parse_args(argv)
    variants = args.variants.split(",")
    if args.saved:
        with open(args.saved) as f:
            saved = json.load(f)
        docs = {tuple(k.rsplit(" ", 1)): d for k, d in saved["docs"].items()}
        args.workers, args.batch = saved["config"]["workers"], saved["config"]["batch"]
    else:
        docs = measure(variants, args.workers, args.batch, args.runs,
                       runner.Progress(len(variants) * 2 * args.workers))
    lines = judged(docs, variants)
    cores = machine_info([]).get("cpu_count")
    print(f"Forked against fresh workers: {args.workers} of each per variant at batch {args.batch:,}, interleaved "
          f"({cores} cores). Each phase judged forked over fresh; the same when the 95% interval of the difference "
          f"lies within {MARGIN - 1:.0%} of the phase itself, or for build and session, of the fresh workers' time "
          f"to the first result.")
    print(tabulate([[ln["phase"], ln["variant"], ln["shown"](ln["forked"]), ln["shown"](ln["fresh"]), ln["says"],
                     ln["size"], "yes" if ln["within"] else "no"] for ln in lines],
                   headers=["phase", "variant", "forked", "fresh", "forked / fresh", "the same within", "is"],
                   tablefmt="github"))
    apart = sorted({ln["phase"] for ln in lines if not ln["within"]})
    print(f"Every phase of every variant is within {MARGIN - 1:.0%}: forked workers measure what fresh ones do."
          if not apart else f"Not within {MARGIN - 1:.0%}: {', '.join(apart)}; those phases need fresh workers.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": vars(args), "docs": {f"{v} {s}": d for (v, s), d in docs.items()},
                       "lines": [{k: ln[k] for k in ln if k != "shown"} for ln in lines]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
