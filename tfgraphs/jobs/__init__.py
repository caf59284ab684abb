"""The parent side of each command: Config, plan() and run() -> Results (or one record), with workers run by the runner."""
