"""Adding a measuring command is a registry entry plus the command's own modules: the toy command of
tests/toy_command (its job, worker, record and renderer) is registered here, and runs from the command line, its
worker started by the runner as every command's workers are; its saved document reads back from Python and the
command line, and its Python function refuses what the command refuses."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

import tfgraphs
from conftest import run_main
from tfgraphs.api import commands
from tfgraphs.cli import build_parser
from tfgraphs.errors import UsageError
from tfgraphs.records import results
from tfgraphs.spec.options import running

TESTS = Path(__file__).resolve().parent
TOY = TESTS / "toy_command"
MOST_FILES = 6   # the command's own modules and the package files its registration touches


def _entry():
    """The toy's registry entry, as it would stand in tfgraphs/api/commands.py."""
    return commands.Command(
        "toy", "the GraphDef bytes and one sess.run of a float32 constant",
        "Build tf.constant of N float32 values in a TF1 graph in a worker, and measure its GraphDef's bytes, its "
        "tensor's bytes and one sess.run.",
        "Measure one float32 constant of size values: its GraphDef's bytes and one sess.run.",
        "toy_command.job:Config", "toy_command.job", "toy_command.render:render",
        beside=(running("timeout", "fresh_workers", "quiet", "json"),))


def _document(record):
    """What DOCUMENTS holds for a command saved as one record: the record type, or a Document naming it where
    records/results.py declares Documents."""
    document = getattr(results, "Document", None)
    return record if document is None else document(record.command, record)


@pytest.fixture
def toy(monkeypatch):
    """The toy registered as a command; the files it needed, relative to the repository."""
    from toy_command.record import Toy

    # A worker outside tfgraphs.worker starts as a fresh `python -m toy_command.worker`: tests/ is on its path.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]))
    entry = _entry()
    # FUNCTIONS before COMMANDS: FUNCTIONS makes a registered command's function when asked for it, and the value
    # monkeypatch restores is the one it finds before setting.
    registered = ((commands, "FUNCTIONS", entry.function()), (commands, "COMMANDS", entry),
                  (results, "DOCUMENTS", _document(Toy)))
    for module, name, value in registered:
        monkeypatch.setitem(getattr(module, name), "toy", value)
    touched = sorted({Path(module.__file__) for module, _, _ in registered})
    return [str(p.relative_to(TESTS.parent)) for p in (*sorted(TOY.glob("*.py")), *touched)]


def test_a_command_is_its_own_modules_and_one_entry(toy):
    assert len(toy) <= MOST_FILES, f"the toy needed {len(toy)} files: " + ", ".join(toy)
    # The subcommands of `tfgraphs --help` are made from the registry.
    assert "toy" in build_parser().format_help()


def test_the_toy_runs_from_the_command_line_and_its_document_reads_back(toy, tmp_path, capfd):
    # One real run, from the command line; Python's function is the same entry's (its refusal is tested below).
    path = tmp_path / "toy.json"
    ran = run_main(capfd, "toy", "--size", 10, "--json", path, "--quiet")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "GraphDef bytes" in ran.stdout and ran.stderr == ""
    doc = json.loads(path.read_text())
    reference = np.arange(10, dtype=np.float32)
    assert doc["command"] == "toy" and doc["status"] == "ok"
    assert doc["tensor_content_bytes"] == reference.nbytes == 40
    assert doc["fetched_sum"] == float(reference.sum()) and doc["graph_bytes"] > reference.nbytes
    assert doc["worker_start"] in ("fresh", "forked") and doc["tf_version"]

    again = run_main(capfd, "report", path)
    assert again.returncode == 0 and again.stdout == ran.stdout
    found = tfgraphs.report(path)
    assert found.text() == ran.stdout
    assert found.rows[0]["tensor_content_bytes"] == reference.nbytes and not found.failed
    assert tfgraphs.toy is commands.FUNCTIONS["toy"]


def test_a_bad_size_is_refused_in_one_line(toy, capfd):
    refused = run_main(capfd, "toy", "--size", 0)
    assert refused.returncode == 2 and refused.stdout == ""
    assert len(refused.stderr.splitlines()) == 1 and "--size" in refused.stderr, refused.stderr
    with pytest.raises(UsageError, match="size"):
        tfgraphs.toy(size=0)
    shown = run_main(capfd, "toy", "--help")
    assert shown.returncode == 0 and "--size N" in shown.stdout and "float32 elements" in shown.stdout
