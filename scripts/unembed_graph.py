"""Move a graph's large constants into variables restored from a checkpoint, and prove the outputs equal.

    python scripts/unembed_graph.py frozen.pb -o frozen-saved --check --feed images=8,224,224,3
    python scripts/unembed_graph.py saved_model_dir -o unembedded --min-bytes 512KiB
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["unembed", *sys.argv[1:]], prog="unembed_graph.py"))
