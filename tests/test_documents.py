"""A worker's document is read strictly, a saved file leniently: a key the record does not know fails the row."""

from tfgraphs.jobs import network as network_job
from tfgraphs.spec.network import Config
from tfgraphs.jobs.runner import Progress
from tfgraphs.records.results import LessonRun
from tfgraphs.records.results import Measurement, ModeRun
from tfgraphs.records.schema import read_worker

GOOD = {"status": "ok", "error": None, "tf_version": "2.x", "devices": [], "graph_bytes": 446, "first_run_s": 0.02,
        "runs_s": [0.001, 0.002], "build_s": 0.001, "session_s": 0.001, "rss_bytes": {}}


def test_a_worker_key_no_field_knows_fails_the_row_and_names_the_key():
    assert Measurement.from_worker(GOOD).status == "ok"
    renamed = {**{k: v for k, v in GOOD.items() if k != "graph_bytes"}, "graph_size": 446}
    row = Measurement.from_worker(renamed)
    assert row.status == "failed" and row.error == "the worker's document holds 'graph_size', which Measurement does not know"
    # The same key in a saved file is left out: older and newer documents still load.
    assert Measurement.from_dict(renamed).status == "ok" and Measurement.from_dict(renamed).graph_bytes is None
    for record in (ModeRun, LessonRun):
        assert read_worker(record, {"status": "ok", "stray": 1})["status"] == "failed"


def test_compare_makes_a_failed_row_of_a_worker_document_with_an_unknown_key(monkeypatch):
    monkeypatch.setattr(network_job.runner, "run_trials", lambda tasks, trials, label, progress, timeout, run, full: (
        {t: [{**GOOD, "first_runs": [0.02]}] for t in tasks}, len(tasks)))
    config = Config(batch=10, dtype="float64", runs=2, trials=1, seed=0, variants=("placeholder",))
    rows, _ = network_job.measure(config, {}, Progress(total=1, quiet=True))
    assert [(r.status, r.error) for r in rows] == [("failed", "the worker's document holds 'first_runs', which "
                                                              "Measurement does not know")]
