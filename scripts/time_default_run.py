"""What the default run costs against the seed's own script: both timed end to end, alternating, on this machine.

    python scripts/time_default_run.py              # 3 rounds: the default compare, then the seed's script four times
    python scripts/time_default_run.py --rounds 6   # enough pairs for the judge to tell the two apart
    python scripts/time_default_run.py --batch 600

The seed's script (scripts/seed_script.py) runs once per approach as the seed's answer ran it: numpy, constant,
placeholder, placeholder, eleven sess.run calls each, every one a fresh `python`. The default run is
`python scripts/compare_inputs.py`; its wall time is split into the workers' imports, their measured phases and the
rest (the worker server's import, data, the NumPy checks, process start and exit).
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tfgraphs.records.judge import judge

SCRIPTS = Path(__file__).resolve().parent
SEED_RUNS = ("numpy", "constant", "placeholder", "placeholder")
PHASES = ("build_s", "serialize_s", "session_s", "init_s", "first_run_s")


def default_run(extra):
    """(wall seconds, its document) of `python scripts/compare_inputs.py --quiet --json ...`."""
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "run.json"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(SCRIPTS / "compare_inputs.py"), "--quiet", "--json", str(out), *extra],
                       stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0, json.loads(out.read_text())


def seed_runs(batch):
    """Wall seconds of the seed's script run once per approach in SEED_RUNS, one after another."""
    t0 = time.perf_counter()
    for approach in SEED_RUNS:
        subprocess.run([sys.executable, str(SCRIPTS / "seed_script.py"), approach, "--batch", str(batch)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def split(wall, doc):
    """The default run's wall time in parts, from its own document."""
    trials = [t for r in doc["variants"] for t in r["trials"] if t["status"] == "ok"]
    imports = sum(t.get("import_s") or 0.0 for t in trials)
    measured = sum((t.get(p) or 0.0) for t in trials for p in PHASES) + sum(sum(t.get("runs_s") or ()) for t in trials)
    starts = {s: sum(t.get("worker_start") == s for t in trials) for s in ("forked", "fresh")}
    return (f"{len(trials)} workers ({starts['forked']} forked, {starts['fresh']} fresh): wall {wall:.1f} s = "
            f"workers importing TensorFlow {imports:.1f} s + measured phases {measured:.1f} s + the rest "
            f"{wall - imports - measured:.1f} s")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch", type=int, default=6000)
    args = p.parse_args(argv)
    extra = [] if args.batch == 6000 else ["--batch", str(args.batch)]
    ours, seeds = [], []
    for round_ in range(args.rounds):
        # Alternating which goes first, so neither always meets a machine the other has just warmed.
        order = ("default", "seed") if round_ % 2 == 0 else ("seed", "default")
        for which in order:
            if which == "default":
                wall, doc = default_run(extra)
                ours.append(wall)
                said = split(wall, doc)
            else:
                seeds.append(seed_runs(args.batch))
        print(f"round {round_ + 1}: default run {said}; the seed's script x{len(SEED_RUNS)} {seeds[-1]:.1f} s; "
              f"ratio {ours[-1] / seeds[-1]:.2f}", flush=True)
    ratios = [a / b for a, b in zip(ours, seeds)]
    verdict = judge(ours, seeds, paired=True)
    print(f"Default run over the seed's script run once per approach, batch {args.batch:,}: median ratio "
          f"{statistics.median(ratios):.2f} over {len(ratios)} rounds ({', '.join(f'{r:.2f}' for r in ratios)}); "
          f"judge: {verdict.brief()}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
