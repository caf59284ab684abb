"""The version of the JSON documents tfgraphs writes, and its history."""

# Format history:
#   1: compare ("variants") and explain ("runs", "attribution") documents; sweep ("rows", each with its
#      "batch", plus "fit" and "tf_error") added without changing the others;
#      shapes ("modes": one per mode and switch setting, plus "switch") likewise; inspect (the Inspection's fields);
#      remote sessions: rows (and their trials) may carry "target", "fetch", "bytes_fed_per_run",
#      "bytes_fetched_per_run", "network_device", "data_device", "traced_between_tasks_bytes", "traced_run_s", and
#      compare/explain configs "target", "baseline", "fetches", "place", "connect_timeout"; absent means in-process.
SCHEMA = 1
TOOL = "tfgraphs"


def envelope(command):
    """The keys every document starts with."""
    return {"schema": SCHEMA, "tool": TOOL, "command": command}
