"""Time the default `tfgraphs compare` end to end and split its wall time into imports, measured phases and the rest.

    python scripts/time_default_run.py            # the default run, as the README's first command makes it
    python scripts/time_default_run.py --batch 600
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PHASES = ("build_s", "serialize_s", "session_s", "init_s", "first_run_s")


def main(argv):
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "run.json"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "tfgraphs", "compare", "--quiet", "--json", str(out), *argv],
                              stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            return proc.returncode
        doc = json.loads(out.read_text())
    trials = [t for r in doc["variants"] for t in r["trials"] if t["status"] == "ok"]
    imports = sum(t.get("import_s") or 0.0 for t in trials)
    measured = sum((t.get(p) or 0.0) for t in trials for p in PHASES) + sum(sum(t["runs_s"]) for t in trials)
    print(f"tfgraphs compare {' '.join(argv)}: {len(trials)} workers, wall {wall:.1f} s = importing TensorFlow "
          f"{imports:.1f} s + measured phases {measured:.1f} s + the rest {wall - imports - measured:.1f} s "
          f"(data, the NumPy check, process start and exit)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
