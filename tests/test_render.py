"""Every renderer on saved documents, without TensorFlow: the same numbers give the same page, byte for byte."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tfgraphs.records.results import load
from tfgraphs.api.commands import COMMANDS
from tfgraphs.api.commands import render
from tfgraphs.records.schema import SCHEMA, upgraded

FIXTURES = Path(__file__).parent / "fixtures"
DOCS = sorted(p.stem for p in FIXTURES.glob("*.json"))


def test_every_command_has_a_fixture():
    assert {json.loads((FIXTURES / f"{d}.json").read_text())["command"] for d in DOCS} == set(COMMANDS)


@pytest.mark.parametrize("name", DOCS)
def test_page_matches_the_saved_rendering(name):
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    assert render(load(doc)) == (FIXTURES / f"{name}.txt").read_text()


@pytest.mark.parametrize("name", DOCS)
def test_document_round_trips(name):
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    again = json.loads(json.dumps(load(doc).to_dict()))
    assert json.loads(json.dumps(load(again).to_dict())) == again
    # Saved again, a document is in the current schema's keys.
    doc = {**upgraded(doc), "schema": SCHEMA} if "schema" in doc else doc
    # A document written before --full-trials is read as every trial measuring every phase, and saved so.
    if "config" in doc and "full_trials" not in doc["config"] and "full_trials" in again["config"]:
        assert again["config"].pop("full_trials") == doc["config"]["trials"]
    assert again == doc


def test_rendering_needs_no_tensorflow():
    # A None entry in sys.modules makes `import tensorflow` fail, as if it were not installed.
    code = ("import sys, json; sys.modules['tensorflow'] = None\n"
            "from tfgraphs.records.results import load\nfrom tfgraphs.api.commands import render\n"
            "for path in sys.argv[1:]: print(render(load(json.load(open(path)))), end='')")
    proc = subprocess.run([sys.executable, "-c", code, *(str(FIXTURES / f"{d}.json") for d in DOCS)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "".join((FIXTURES / f"{d}.txt").read_text() for d in DOCS)


def test_a_changed_number_changes_the_page():
    doc = json.loads((FIXTURES / "compare.json").read_text())
    for record in (doc["variants"][1], *doc["variants"][1]["trials"]):   # a row holds its trials' median
        record["graph_bytes"] += 1
    assert render(load(doc)) != (FIXTURES / "compare.txt").read_text()


def saved(name):
    return load(json.loads((FIXTURES / f"{name}.json").read_text()))


def test_a_summed_run_without_a_target_is_not_called_remote():
    # --returns sum alone: every row in-process, so the section says what ran, not "Remote sessions".
    summed = saved("compare")
    summed = replace(summed, rows=tuple(replace(r, returns="sum", target="") for r in summed.rows))
    text = render(summed)
    assert "The output summed in the graph" in text and "What the summed runs show:" in text
    assert "Remote sessions" not in text and "remote runs" not in text
    remote = render(saved("compare-remote"))
    assert "Remote sessions" in remote and "What the remote runs show:" in remote


def test_in_process_bytes_are_fed_not_sent():
    # In-process, session.py hands a fed array to TensorFlow in memory and the GraphDef is never serialized to be
    # sent: "sent" and "sending" belong to remote sessions only.
    summed = saved("compare")
    summed = replace(summed, rows=tuple(replace(r, returns="sum", target="", bytes_fed_per_run=r.const_bytes and 0 or
                                                8 * 1024 * 20, bytes_fetched_per_run=8) for r in summed.rows))
    text = " ".join(render(summed, verbose=True).split())
    assert "handed over in memory in-process" in text
    assert "sent" not in text.replace("represent", "") and "sending" not in text
    remote = " ".join(render(saved("compare-remote"), verbose=True).split())
    assert "sent over gRPC to a remote one" in remote and "a remote session is sent it at its first run" in remote


def test_the_header_says_which_trials_ran_later_runs():
    from tfgraphs.records.results import CompareResults
    from tfgraphs.render.page import runs_text
    from tfgraphs.spec.network import Config

    # Every trial times its later runs, whichever measure every phase.
    assert runs_text(Config(runs=3, trials=4, full_trials=1)) == "3 later runs x 4 trials"
    # Documents written when only the full trials timed them.
    first = dict(later_every_trial=False)
    assert runs_text(Config(runs=10, trials=4, full_trials=1, **first)) == "4 trials, the first with 10 later runs"
    assert runs_text(Config(runs=10, trials=4, full_trials=2, **first)) == "4 trials, the first 2 with 10 later runs"
    assert runs_text(Config(runs=10, trials=4, full_trials=4, **first)) == "10 later runs x 4 trials"
    before = {k: v for k, v in Config(runs=3).to_dict().items() if k not in ("trials", "full_trials")}
    assert runs_text(CompareResults.read_config(before)) == "3 later runs x 1 trial"   # documents before --full-trials
