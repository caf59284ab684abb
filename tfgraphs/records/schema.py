"""The version of the JSON documents tfgraphs writes, and its history."""

# Format history:
#   1: compare ("variants") and explain ("runs", "attribution") documents; sweep ("rows", each with its
#      "batch", plus "fit" and "tf_error") added without changing the others;
#      shapes ("modes": one per mode and switch setting, plus "switch") likewise; inspect (the Inspection's fields);
#      later "tfgraphs_version", "created" (ISO-8601 UTC), "env" (timing variables set) and machine["tf_build"]
#      added, each optional when read; then per row "activation_bytes" (compare, sweep) and "folded" (embedded
#      variants: did the network still run after the first run), per fit "folded" and, in explain,
#      "single_thread" (one single-threaded evaluation of the network), each left out when unset.
SCHEMA = 1
TOOL = "tfgraphs"


def envelope(command):
    """The keys every document starts with."""
    return {"schema": SCHEMA, "tool": TOOL, "command": command}
