"""The version of the JSON documents tfgraphs writes, and its history."""

# Format history:
#   1: compare ("variants") and explain ("runs", "attribution") documents; sweep ("rows", each with its
#      "batch", plus "fit" and "tf_error") added without changing the others;
#      shapes ("modes": one per mode and switch setting, plus "switch") likewise; inspect (the Inspection's fields);
#      pitfalls ("lessons": one per lesson and variant, each with its "cases") likewise.
SCHEMA = 1
TOOL = "tfgraphs"


def envelope(command):
    """The keys every document starts with."""
    return {"schema": SCHEMA, "tool": TOOL, "command": command}
