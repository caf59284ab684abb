"""The parent side of each command: Config, plan() and run() -> Report, with workers run by the runner."""
