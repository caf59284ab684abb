"""What `tfgraphs watch` adds to a script's later runs: the same TF1 script run alone and watched, each in fresh
processes in alternating order, its later runs timed by the script itself.

    python scripts/watch_overhead.py                       # batch 600, 30 runs, 5 processes a side
    python scripts/watch_overhead.py --batch 6000 --processes 7
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from tfgraphs.records.judge import judge

OVERHEAD_MARGIN = 1.05   # an overhead under 5% of a run is what "no difference" should mean here
SCRIPT = Path(__file__).resolve().parent.parent / "docs" / "scripts" / "timed_loop.py"


def later_median(command):
    """The median of one process's runs after its first, as the script printed them."""
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    # The script's own line; under watch, the report follows it.
    seconds = json.loads(next(line for line in out.splitlines() if line.startswith("[")))
    return statistics.median(seconds[1:])


def summary(values):
    """min / median / max in ms, and n."""
    return (f"{min(values) * 1e3:.2f} / {statistics.median(values) * 1e3:.2f} / {max(values) * 1e3:.2f} ms "
            f"(n={len(values)})")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=600)
    p.add_argument("--runs", type=int, default=30)
    p.add_argument("--processes", type=int, default=5, help="fresh processes a side")
    args = p.parse_args(argv)
    plain = [sys.executable, str(SCRIPT), str(args.batch), str(args.runs)]
    watched = [sys.executable, "-m", "tfgraphs", "watch", "--quiet", str(SCRIPT), str(args.batch), str(args.runs)]
    alone, under = [], []
    for i in range(args.processes):
        # Alternating which side goes first keeps a drift of the machine from favouring one side.
        pairs = ((plain, alone), (watched, under)) if i % 2 == 0 else ((watched, under), (plain, alone))
        for command, into in pairs:
            into.append(later_median(command))
    print(f"later runs, median per process, batch {args.batch}, {args.runs} runs a process:")
    print(f"  alone:   {summary(alone)}")
    print(f"  watched: {summary(under)}")
    # One median a process: the processes are the independent samples, and the judge decides.
    print(f"  watched against alone: {judge(under, alone, margin=OVERHEAD_MARGIN).says()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
