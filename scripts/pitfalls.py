"""The TF1 pitfalls, measured: the executor cache, a graph that grows in a loop, copies of X in saved files.

    python scripts/pitfalls.py                                   # every lesson, batch 6000
    python scripts/pitfalls.py --lessons executor-cache --batch 2000
    python scripts/pitfalls.py --json out.json && tfgraphs report out.json
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["pitfalls", *sys.argv[1:]], prog="pitfalls.py"))
