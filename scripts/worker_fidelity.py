"""Do forked workers measure what fresh ones do? Both interleaved, each phase judged forked against fresh.

    python scripts/worker_fidelity.py                       # 8 of each per variant at batch 6000 (about 5 minutes)
    python scripts/worker_fidelity.py --workers 4 --batch 600 --json fidelity.json

A forked worker comes from a process that imported TensorFlow and did nothing else (tfgraphs.children); a fresh
one imports TensorFlow itself. Each round runs every variant once each way, in an order that rotates by round.
"""

import argparse
import json
import statistics
import sys

from tabulate import tabulate

from tfgraphs import children
from tfgraphs.jobs import runner
from tfgraphs.jobs.trials import rotated
from tfgraphs.machine import machine_info
from tfgraphs.records.judge import judge
from tfgraphs.spec.tasks import SeedTask
from tfgraphs.units import fmt_bytes, fmt_s

MARGIN = 1.10   # forked is taken for fresh where every phase is within 10%
# The phases judged: a worker's value of each, and how it is shown.
PHASES = {"build": (lambda d: d["build_s"], fmt_s),
          "session": (lambda d: d["session_s"], fmt_s),
          "first run": (lambda d: d["first_run_s"], fmt_s),
          "later runs (median)": (lambda d: statistics.median(d["runs_s"]), fmt_s),
          "peak memory": (lambda d: d["peak_rss_bytes"], fmt_bytes)}
STARTS = (children.FORKED_START, children.FRESH_START)


def measure(variants, workers, batch, runs, progress):
    """{(variant, start): [worker documents]}, the starts and variants interleaved round by round."""
    docs = {(v, s): [] for v in variants for s in STARTS}
    with children.workers(fork=True):
        for round_ in range(workers):
            for variant in rotated(variants, round_):
                for start in rotated(STARTS, round_):
                    task = SeedTask(variant=variant, batch=batch, runs=runs)
                    with children.workers(fork=start == children.FORKED_START):
                        doc = runner.run_worker(task, f"{variant} {start} {round_ + 1}/{workers}", progress)
                    if doc.get("status") != "ok":
                        raise SystemExit(f"worker_fidelity.py: {variant} {start}: {doc.get('error')}")
                    docs[variant, doc["worker_start"]].append(doc)
    return docs


def judged(docs, variants):
    """One line per phase and variant: the medians forked and fresh, and the judge's verdict of forked/fresh."""
    lines = []
    for phase, (value, show) in PHASES.items():
        for v in variants:
            forked, fresh = ([value(d) for d in docs[v, s]] for s in STARTS)
            verdict = judge(forked, fresh, margin=MARGIN)
            lines.append({"phase": phase, "variant": v, "forked": statistics.median(forked),
                          "fresh": statistics.median(fresh), "verdict": verdict.to_dict(),
                          "within": within(verdict), "says": verdict.brief(), "shown": show})
    return lines


def within(verdict):
    """Whether forked is within MARGIN of fresh: the whole 95% interval inside x1/MARGIN to xMARGIN (a difference
    the test finds inside it, such as x1.00 to x1.01, is one this size does not count)."""
    return verdict.bounded and 1 / MARGIN <= verdict.low and verdict.high <= MARGIN


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--variants", default="numpy,constant,placeholder")
    p.add_argument("--workers", type=int, default=8, help="workers of each start per variant (default 8)")
    p.add_argument("--batch", type=int, default=6000)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--json", help="also write every worker's document and every verdict here")
    args = p.parse_args(argv)
    variants = args.variants.split(",")
    progress = runner.Progress(len(variants) * 2 * args.workers)
    docs = measure(variants, args.workers, args.batch, args.runs, progress)
    lines = judged(docs, variants)
    cores = machine_info([]).get("cpu_count")
    print(f"Forked against fresh workers: {args.workers} of each per variant at batch {args.batch:,}, interleaved "
          f"({cores} cores). The judge on forked over fresh, no difference beyond {MARGIN - 1:.0%}:")
    print(tabulate([[ln["phase"], ln["variant"], ln["shown"](ln["forked"]), ln["shown"](ln["fresh"]), ln["says"],
                     "yes" if ln["within"] else "no"] for ln in lines],
                   headers=["phase", "variant", "forked", "fresh", "forked / fresh", f"within {MARGIN - 1:.0%}"],
                   tablefmt="github"))
    apart = sorted({ln["phase"] for ln in lines if not ln["within"]})
    print(f"Every phase of every variant within {MARGIN - 1:.0%}: forked workers measure what fresh ones do."
          if not apart else f"Not within {MARGIN - 1:.0%}: {', '.join(apart)}; those phases need fresh workers.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": vars(args), "docs": {f"{v} {s}": d for (v, s), d in docs.items()},
                       "lines": [{k: ln[k] for k in ln if k != "shown"} for ln in lines]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
