"""The watch worker on real TensorFlow: tiny scripts run as `python SCRIPT` would, and the document they leave. The
worker starts as a fresh interpreter, as the product starts it; for the clean script it is forked from the session's
server, as the tests' commands start it (forking/sitecustomize.py)."""

import json
import statistics
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tfgraphs import processes
from tfgraphs.machine import installed_tf_version

MIN_BYTES = 1000
HOW = "same object, sampled bytes unchanged"
BIG = np.arange(50 * 8 * 8 * 1, dtype=np.float64).reshape(50, 8, 8, 1)


def write_script(folder, name, text):
    """Write a dedented script; return (its path, {marker: line number}) for lines ending in `# @marker`."""
    text = textwrap.dedent(text).lstrip("\n")
    path = folder / name
    path.write_text(text)
    marks = {line.rsplit("# @", 1)[1].strip(): number
             for number, line in enumerate(text.splitlines(), 1) if "# @" in line}
    return path, marks


def watch_command(script, out, *args, tf1=False):
    """The worker's command line for script."""
    return [sys.executable, "-m", "tfgraphs.worker.watch", "--out", str(out), "--min-bytes", str(MIN_BYTES),
            *(["--tf1"] if tf1 else []), "--", str(script), *args]


def watch(script, out, *args, tf1=False, forked=False):
    """Run the worker on script, fresh or forked; return (CompletedProcess, document)."""
    argv = watch_command(script, out, *args, tf1=tf1)
    if not forked:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    else:
        with open(f"{out}.stdout", "w+") as stdout, open(f"{out}.stderr", "w+") as stderr:
            code = processes.start(argv, stdout=stdout, stderr=stderr).wait(300)
            proc = subprocess.CompletedProcess(argv, code, *(f.seek(0) or f.read() for f in (stdout, stderr)))
    return proc, json.loads(out.read_text())


def traceback_text(stderr):
    """The last traceback Python printed on stderr."""
    assert "Traceback (most recent call last):" in stderr, stderr
    return stderr[stderr.rindex("Traceback (most recent call last):"):]


TF1_SCRIPT = """
import sys
import numpy as np
import tensorflow as tf

big = np.arange(50 * 8 * 8 * 1, dtype=np.float64).reshape(50, 8, 8, 1)
x = tf.placeholder(tf.float64, [None, 8, 8, 1], name="x")
w = tf.constant(big)  # @const
y = tf.reduce_sum(x * w)
fed = np.ones((50, 8, 8, 1))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())  # @init
    for i in range(4):
        total = tf.reduce_sum(x)  # @grow
        sess.run([y, total], feed_dict={x: fed})  # @run
    step = sess.make_callable(y, feed_list=[x])
    for _ in range(2):
        step(fed)  # @callable
sys.exit(3)
"""


@pytest.fixture(scope="module")
def tf1_run(tmp_path_factory):
    """The TF1 script with a big constant, a growing loop, a repeated feed and a callable, run once."""
    folder = tmp_path_factory.mktemp("tf1")
    script, marks = write_script(folder, "model.py", TF1_SCRIPT)
    proc, doc = watch(script, folder / "doc.json", tf1=True)
    return script, marks, proc, doc


def test_tf1_script_runs_and_exit_status_is_kept(tf1_run):
    script, _, proc, doc = tf1_run
    assert proc.returncode == 3, proc.stderr
    assert {k: doc[k] for k in ("status", "error", "tf_version", "script", "argv", "tf1", "min_bytes",
                                "exit_code", "ended", "touched_tensorflow", "runs")} == {
        "status": "ok", "error": None, "tf_version": installed_tf_version(), "script": str(script), "argv": [str(script)],
        "tf1": True, "min_bytes": MIN_BYTES, "exit_code": 3, "ended": "exit", "touched_tensorflow": True, "runs": 7}
    assert list(doc) == ["status", "error", "tf_version", "script", "argv", "tf1", "min_bytes", "exit_code", "ended",
                         "touched_tensorflow", "runs", "graph_ops", "script_s", "calls", "consts", "growth", "feeds",
                         "functions", "sessions"]
    assert doc["functions"] == []
    assert not (script.parent / "doc.json.tmp").exists()


def test_embedded_constant_is_named_at_its_line(tf1_run):
    script, marks, _, doc = tf1_run
    [const] = doc["consts"]
    assert BIG.nbytes <= const.pop("bytes") <= BIG.nbytes + 200
    assert const == {"file": str(script), "line": marks["const"], "name": "Const", "tensor_bytes": BIG.nbytes,
                     "data_bytes": BIG.nbytes, "dtype": "float64", "shape": [50, 8, 8, 1], "runs_before": 0}


def test_ops_added_after_the_first_run_are_growth(tf1_run):
    script, marks, _, doc = tf1_run
    # The initializer ran first, so each of the four passes adds a Sum and its axis Const between two runs.
    [growth] = doc["growth"]
    after = growth.pop("after_s")
    here = {"file": str(script), "line": marks["grow"]}
    assert growth == {**here, "ops": 8, "runs": 4, "op_types": {"Const": 4, "Sum": 4}, "causes": {}, "loop": here,
                      "via": [here], "after_site": {"file": str(script), "line": marks["run"]}}
    # Each of the four gaps is followed by a run at the loop's run line, each timed.
    assert len(after) == 4 and all(t > 0 for t in after)


def test_calls_are_timed_per_line(tf1_run):
    script, marks, _, doc = tf1_run
    init, run, made = doc["calls"]
    sites = [(c["file"], c["line"], c["kind"], c["n"], c["signatures"], c["first_run_index"]) for c in doc["calls"]]
    assert sites == [(str(script), marks["init"], "run", 1, 1, 0), (str(script), marks["run"], "run", 4, 4, 1),
                     (str(script), marks["callable"], "callable", 2, 1, 5)]
    assert init["later_median_s"] is None and init["feed_bytes_per_call"] == 0
    times = run["times_s"]
    assert len(times) == 4 and all(t > 0 for t in times)
    assert run["first_s"] == times[0] and run["later_median_s"] == statistics.median(times[1:])
    # Each pass fetches a new tensor, so each call is a new signature.
    assert run["signature_first_s"] == times
    assert run["feed_bytes_per_call"] == made["feed_bytes_per_call"] == np.ones((50, 8, 8, 1)).nbytes
    assert made["signature_first_s"] == made["times_s"][:1] and len(made["times_s"]) == 2


def test_the_same_big_array_fed_each_call_is_a_repeated_feed(tf1_run):
    script, marks, _, doc = tf1_run
    nbytes = np.ones((50, 8, 8, 1)).nbytes
    for feed in doc["feeds"]:
        assert feed.pop("convert_s") > 0
    assert doc["feeds"] == [
        {"file": str(script), "line": marks["run"], "feed": "x:0", "bytes": nbytes, "calls": 4, "same_calls": 4,
         "how": HOW},
        {"file": str(script), "line": marks["callable"], "feed": "x:0", "bytes": nbytes, "calls": 2,
         "same_calls": 2, "how": HOW}]


CLEAN_SCRIPT = """
import numpy as np
import tensorflow as tf

x = tf.placeholder(tf.float32, [None, 16], name="x")
y = tf.reduce_mean(tf.square(x))
with tf.Session() as sess:
    for i in range(3):
        sess.run(y, {x: np.full((2, 16), i, np.float32)})  # @small
        sess.run(y, {x: np.random.rand(64, 16).astype(np.float32)})  # @fresh
raise RuntimeError("the clean script fails here")  # @raise
"""


def test_clean_script_has_no_findings_and_its_error_is_the_users(tmp_path):
    script, marks = write_script(tmp_path, "clean.py", CLEAN_SCRIPT)
    proc, doc = watch(script, tmp_path / "doc.json", tf1=True, forked=True)
    assert proc.returncode == 1
    shown = traceback_text(proc.stderr).splitlines()
    # The traceback starts at the script: none of the runner's frames (tfgraphs, runpy) come before it.
    assert shown[1] == f'  File "{script}", line {marks["raise"]}, in <module>'
    assert shown[-1] == "RuntimeError: the clean script fails here"
    assert [line for line in shown if line.startswith("  File ")] == [shown[1]]
    assert (doc["status"], doc["exit_code"], doc["ended"], doc["runs"]) == ("ok", 1, "raised", 6)
    assert doc["consts"] == [] and doc["growth"] == []
    # A fresh array each call is big but never the same one again; the small one is below --min-bytes.
    [feed] = doc["feeds"]
    assert feed.pop("convert_s") > 0
    assert feed == {"file": str(script), "line": marks["fresh"], "feed": "x:0", "bytes": 64 * 16 * 4, "calls": 3,
                    "same_calls": 1, "how": HOW}
    assert [(c["line"], c["n"], c["signatures"]) for c in doc["calls"]] == [(marks["small"], 3, 1),
                                                                           (marks["fresh"], 3, 1)]


PLAIN_SCRIPT = """
import json
import sys
print(json.dumps({"argv": sys.argv, "name": __name__, "file": __file__, "path0": sys.path[0],
                  "spec": repr(__spec__), "tensorflow": "tensorflow" in sys.modules}))
sys.exit(int(sys.argv[-1]) if sys.argv[-1].isdigit() else 0)
"""


def test_script_without_tensorflow_sees_what_python_gives(tmp_path):
    script, _ = write_script(tmp_path, "plain.py", PLAIN_SCRIPT)
    args = ["--flag", "-x", "two words", "--", "0"]
    proc, doc = watch(script, tmp_path / "doc.json", *args)
    plain = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == plain.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == json.loads(plain.stdout)
    assert json.loads(proc.stdout)["tensorflow"] is False
    assert 0 < doc.pop("script_s") < 60
    assert doc == {"status": "ok", "error": None, "tf_version": None, "script": str(script),
                   "argv": [str(script), *args], "tf1": False, "min_bytes": MIN_BYTES, "exit_code": 0,
                   "ended": "exit", "touched_tensorflow": False, "runs": 0, "graph_ops": 0, "calls": [], "consts": [],
                   "growth": [], "feeds": [], "functions": [], "sessions": []}


def test_watching_in_process_records_a_tiny_graph_and_restores_the_session():
    from tfgraphs.tfimport import import_tensorflow
    from tfgraphs.worker.watch import watching

    tf = import_tensorflow()
    from tensorflow.python.client import session

    run_before = session.BaseSession.__dict__["run"]
    graph = tf.Graph()
    with watching(min_bytes=MIN_BYTES) as seen:
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float64, [50, 8, 8, 1])
            line = sys._getframe().f_lineno + 1
            y = tf.reduce_sum(x * tf.constant(BIG))
            with tf.compat.v1.Session(graph=graph) as sess:
                for _ in range(2):
                    sess.run(y, {x: BIG})
    assert session.BaseSession.__dict__["run"] is run_before
    doc = seen.document()
    assert (doc["status"], doc["runs"], doc["touched_tensorflow"], doc["growth"]) == ("ok", 2, True, [])
    [const] = doc["consts"]
    assert (const["file"], const["line"], const["tensor_bytes"], const["runs_before"]) == (__file__, line,
                                                                                           BIG.nbytes, 0)
    [call] = doc["calls"]
    assert (call["file"], call["line"], call["n"], call["signatures"]) == (__file__, line + 3, 2, 1)
    [feed] = doc["feeds"]
    assert (feed["line"], feed["bytes"], feed["calls"], feed["same_calls"]) == (line + 3, BIG.nbytes, 2, 2)


def test_every_value_feed_dict_converts_is_counted_as_the_array_it_hands_tensorflow():
    from tfgraphs.tfimport import import_tensorflow
    from tfgraphs.worker.watch import watching

    tf = import_tensorflow()
    listed = BIG.tolist()   # a nested list, converted by session.py to float32 for x
    graph = tf.Graph()
    with watching(min_bytes=MIN_BYTES) as seen:
        with graph.as_default():
            x = tf.compat.v1.placeholder(tf.float32, [50, 8, 8, 1], name="x")
            k = tf.compat.v1.placeholder(tf.int64, [], name="k")
            y = tf.reduce_sum(x) * tf.cast(k, tf.float32)
            with tf.compat.v1.Session(graph=graph) as sess:
                line = sys._getframe().f_lineno + 2
                for _ in range(3):
                    sess.run(y, {x: listed, "k:0": np.int64(2)})
                sess.run(y, {x: BIG, k: 3})   # float64 converted to float32: half the bytes
    doc = seen.document()
    converted = np.asarray(listed, dtype=np.float32).nbytes + 8
    assert [(c["line"], c["n"], c["feed_bytes_per_call"]) for c in doc["calls"]] == [
        (line, 3, converted), (line + 1, 1, converted)]
    assert [(f["line"], f["feed"], f["bytes"], f["calls"], f["same_calls"], f["converted_from"])
            for f in doc["feeds"]] == [(line, "x:0", BIG.nbytes // 2, 3, 3, "list"),
                                       (line + 1, "x:0", BIG.nbytes // 2, 1, 1, "ndarray")]


def test_ops_made_before_a_sessions_first_run_are_not_growth_and_those_between_its_runs_are():
    from tfgraphs.tfimport import import_tensorflow
    from tfgraphs.worker.watch import watching

    tf = import_tensorflow()
    graph = tf.Graph()
    with watching(min_bytes=MIN_BYTES) as seen:
        with graph.as_default():
            y = tf.constant(1.0) + 1.0
            with tf.compat.v1.Session(graph=graph) as first:
                first.run(y)
            z = y * 2.0          # made after the first session's runs, before the second's first run
            with tf.compat.v1.Session(graph=graph) as second:
                second.run(z)
                line = sys._getframe().f_lineno + 2
                for _ in range(3):
                    w = z + 3.0   # made between the second session's runs: growth
                    second.run(w)
    growth = seen.document()["growth"]
    assert [(g["line"], g["ops"], g["runs"]) for g in growth] == [(line, 6, 3)]


def test_a_fault_in_the_hooks_never_reaches_the_script(monkeypatch):
    from tfgraphs.tfimport import import_tensorflow
    from tfgraphs.worker.watch import Watch

    tf = import_tensorflow()

    def broken(runs_so_far):
        raise RuntimeError("graph internals moved\nsecond line")

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [3])
        y = x * 2
    seen = Watch(MIN_BYTES)
    monkeypatch.setattr(seen.graphs, "examine_all", broken)
    seen.start()
    try:
        with tf.compat.v1.Session(graph=graph) as sess:
            results = [sess.run(y, {x: [1, 2, 3]}).tolist() for _ in range(2)]
    finally:
        seen.stop()
    assert results == [[2, 4, 6]] * 2
    doc = seen.document()
    assert (doc["status"], doc["error"], doc["calls"]) == ("failed", "RuntimeError: graph internals moved", [])


def test_a_missing_script_is_refused_as_python_refuses_it(tmp_path):
    missing = tmp_path / "nowhere.py"
    proc, doc = watch(missing, tmp_path / "doc.json")
    assert proc.returncode == 2
    assert f"can't open file {str(missing)!r}: [Errno 2] No such file or directory" in proc.stderr
    assert (doc["status"], doc["exit_code"], doc["ended"], doc["runs"], doc["touched_tensorflow"]) == (
        "ok", 2, "raised", 0, False)
