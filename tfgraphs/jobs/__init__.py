"""The parent side of each command: its job (plan, then run -> its results) and the runner that starts its workers,
and the gRPC servers remote runs start."""
