"""The seed network fed four ways, each phase measured in a fresh worker process.

    python scripts/compare_inputs.py                      # batch 6000, float64, all four variants
    python scripts/compare_inputs.py --batch 60000        # the seed's size (constant needs about 8-9 GB of RAM)
    python scripts/compare_inputs.py --json out.json && tfgraphs report out.json
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["compare", *sys.argv[1:]], prog="compare_inputs.py"))
