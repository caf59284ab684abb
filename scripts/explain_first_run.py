"""What the first sess.run pays for: optimizer ablation, per-op traces and TensorBoard graphs.

    python scripts/explain_first_run.py                              # batch 6000: constant, placeholder, variable x 4 presets
    python scripts/explain_first_run.py --trace traces/ --tensorboard tb/
    python scripts/explain_first_run.py --batch 60000 --variants constant,placeholder --runs 3
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["explain", *sys.argv[1:]], prog="explain_first_run.py"))
