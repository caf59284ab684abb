"""Every field of a saved one-record document (inspect, unembed, watch) given a value of another kind: refused in one
line naming the field, exit 2, or read as a value the field allows."""

import copy
import json
import math
from pathlib import Path

import pytest

from tfgraphs import report
from tfgraphs.cli import main
from tfgraphs.errors import UsageError

FIXTURES = Path(__file__).parent / "fixtures"
# What replaces each field in turn: JSON's other kinds, a number past any a run records, a negative one and NaN.
VALUES = (None, [], "x", True, 2**64, -1, math.nan, {})
# The envelope is read before any record: test_hostile covers it.
ENVELOPE = ("schema", "tool", "command")


def places(value, path=()):
    """The path of every value inside value: each key of an object, and the first item of each list."""
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from places(inner, (*path, key))
    elif isinstance(value, list) and value:
        yield from places(value[0], (*path, 0))


def replaced(doc, path, value):
    """doc with the value at path replaced (a copy)."""
    doc = copy.deepcopy(doc)
    inner = doc
    for key in path[:-1]:
        inner = inner[key]
    inner[path[-1]] = value
    return doc


def field_name(path):
    """The name a refusal of the value at path must say: its key, or for a list's item the list's key."""
    return next(str(k) for k in reversed(path) if isinstance(k, str))


@pytest.mark.parametrize("name", ["inspect", "unembed", "watch"])
def test_each_field_of_another_kind_is_refused_naming_it_or_read(name, tmp_path):
    # Through report(), which `tfgraphs report` calls: its UsageError is the command's one line and exit 2 (the cases
    # below go through main); building the command line's parser for each of the ~1,600 cases would cost seconds.
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    saved = tmp_path / "changed.json"
    wrong = []
    for path in list(places(doc))[1:]:
        if path[0] in ENVELOPE:
            continue
        for value in VALUES:
            saved.write_text(json.dumps(replaced(doc, path, value)))
            try:
                report(saved).text()
            except UsageError as exc:
                said = str(exc)
                if "\n" in said or field_name(path) not in said or "not a valid tfgraphs results file" in said:
                    wrong.append((path, value, said))
    assert wrong == []


@pytest.mark.parametrize("name, path, value, said", [
    ("watch", ("calls", 0, "n"), None, "calls[0].n is null, not a number"),
    ("watch", ("calls", 0, "times_s"), "x", "calls[0].times_s is 'x', not a list"),
    ("watch", ("growth", 0, "op_types", "Mul"), [], "growth[0].op_types.Mul is a list, not a number"),
    ("watch", ("feeds", 0), {}, "feeds[0] has no file, line, feed, bytes, calls, same_calls, how"),
    ("watch", ("argv", 0), 7, "argv[0] is 7, not a string"),
    ("inspect", ("repeats", 0, "nodes", 0), None, "repeats[0].nodes[0] is null, not a string"),
    ("inspect", ("op_types", 0), [], "op_types[0] is a list, not an object"),
    ("unembed", ("before", "graph_bytes"), None, "before.graph_bytes is null, not a number"),
    ("unembed", ("min_bytes",), None, "Unembedding.min_bytes is null, not a whole number"),
    ("unembed", ("after",), {}, "after is an empty object, but a rewrite measures both sides"),
    ("unembed", ("moved", 0, "bytes"), 2**64, "moved[0].bytes is 18446744073709551616..., larger than any figure"),
])
def test_a_refusal_says_the_field_and_what_it_should_be(name, path, value, said, tmp_path, capsys):
    saved = tmp_path / "changed.json"
    saved.write_text(json.dumps(replaced(json.loads((FIXTURES / f"{name}.json").read_text()), path, value)))
    assert main(["report", str(saved)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"tfgraphs: {saved}: {said}" + err.split(said, 1)[1] and err.count("\n") == 1
