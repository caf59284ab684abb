"""Graph size, first run and memory against batch for each variant, a line fitted to the sizes, and the 2 GiB limit.

    python scripts/sweep_batch.py                                          # batches 500..4000, constant and placeholder
    python scripts/sweep_batch.py --batches 250,500,1000,2000 --runs 3 --json sw.json --plot sw.png
    python scripts/sweep_batch.py --dtype float32 --variants constant,dataset-embedded,dataset-fed
    tfgraphs report sw.json                                                # re-render without running anything
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["sweep", *sys.argv[1:]], prog="sweep_batch.py"))
