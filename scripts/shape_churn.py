"""Conv1D over 30 new input lengths, twice: what a new length costs each mode, and the fixed-block remedy.

    python scripts/shape_churn.py                         # the seed's sizes, all modes
    python scripts/shape_churn.py --count 4 --start 1000  # a quick look
    python scripts/shape_churn.py --modes function,blocked --json out.json && tfgraphs report out.json
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["shapes", *sys.argv[1:]], prog="shape_churn.py"))
