"""What is inside a GraphDef or SavedModel: size, op types, the largest constants, headroom to 2 GiB (nothing runs).

    python scripts/inspect_graph.py frozen_model.pb
    python scripts/inspect_graph.py exported/saved_model_dir --top 20 --json inspect.json
    python scripts/inspect_graph.py graph.pbtxt --strip-constants readable.pbtxt
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["inspect", *sys.argv[1:]], prog="inspect_graph.py"))
