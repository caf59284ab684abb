"""The tf.data variants end to end: real workers, checked against the NumPy reference."""

import json

from conftest import run_cli
from tfgraphs.spec import network

BATCH = 20


def test_dataset_variants_match_reference(tmp_path):
    path = tmp_path / "d.json"
    proc = run_cli("compare", "--variants", "dataset-embedded,dataset-fed", "--batch", BATCH, "--runs", 2,
                   "--json", path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(path.read_text())["variants"]}
    data = network.data_bytes(BATCH, "float64")
    for name, r in rows.items():
        assert r["status"] == "ok" and r["error"] is None, name
        # The worker fails the row unless both the first and the last run match the reference.
        assert r["max_abs_err"] <= network.TOLERANCE["float64"]
        assert r["init_s"] is not None if name == "dataset-fed" else r["init_s"] is None
    # The one-shot iterator's function holds X by value and the outer graph keeps its own Const of it.
    assert rows["dataset-embedded"]["const_bytes"] >= 2 * data
    assert rows["dataset-fed"]["graph_bytes"] < 20_000 and rows["dataset-fed"]["const_bytes"] < 1_000
