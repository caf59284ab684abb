"""One TensorFlow gRPC server for remote sessions, serving until Ctrl-C or SIGTERM.

    python scripts/grpc_server.py --port 2222       # then: tfgraphs compare --target grpc://127.0.0.1:2222
"""

import sys

from tfgraphs.cli import main

if __name__ == "__main__":
    sys.exit(main(["server", *sys.argv[1:]], prog="grpc_server.py"))
