"""Remote sessions: real tiny runs on 127.0.0.1 servers, exact bytes, no server left behind, sentences by the rule.

The real runs start gRPC servers and workers, each a process importing TensorFlow, and the command in a process of
its own where a signal or its exit is what is tested; a refused cluster runs tfgraphs.cli.main in this process.
"""

import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid

import pytest

from conftest import interruptible, needs_private_network, run_main, running, words
from tfgraphs import processes
from tfgraphs.errors import UsageError
from tfgraphs.findings import remote as why
from tfgraphs.jobs import network, runner, servers
from fakes import results
from tfgraphs.records.results import Measurement, Row
from tfgraphs.records.judge import RANK_SUM
from tfgraphs.spec.options import FEWEST
from tfgraphs.spec import network as spec
from tfgraphs.spec.network import SeedTask

pytestmark = needs_private_network
MARK = "TFGRAPHS_TEST_MARK"
URL = "grpc://127.0.0.1:1"
X10 = 10 * 32 * 32 * 1 * 8          # X at batch 10, float64
W = 3 * 3 * 1 * 6 * 8               # W [3,3,1,6]
EXPLAIN_TRIALS = FEWEST[RANK_SUM]   # explain's default --trials: the fewest a rank test can judge
OUT10 = 10 * 15 * 15 * 6 * 8        # relu(avg_pool(conv)) at batch 10


def marked(mark):
    """Pids of processes, other than this one, whose environment carries this test's mark (forked ones too)."""
    found = [pid for pid, (_, env) in running().items() if env.get(MARK) == mark]
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue
        if f"{MARK}={mark}".encode() in env.split(b"\0") and int(pid) != os.getpid():
            found.append(int(pid))
    return found


def cmdline(pid):
    """What pid runs: a forked worker shows as its server, whose folder (beside its socket) says what it runs."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = f.read().decode().split("\0")
    except OSError:
        return ""
    if "tfgraphs.processes" in argv:
        child = processes.running(os.path.dirname(argv[argv.index("tfgraphs.processes") + 1])).get(pid)
        if child:
            return " ".join(child[0])
    return " ".join(argv)


@pytest.fixture
def mark(monkeypatch):
    """A fresh mark in this process's environment (children inherit it); asserts no marked process is left."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK, value)
    assert marked(value) == []
    yield value
    time.sleep(0.2)
    assert [cmdline(p) for p in marked(value)] == []


def cli(*args, env=None):
    return subprocess.Popen([sys.executable, "-m", "tfgraphs", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=interruptible)


def test_compare_on_a_fresh_local_server_writes_both_rows_with_their_bytes(mark, tmp_path):
    path = tmp_path / "out.json"
    proc = cli("compare", "--target", "local", "--batch", 10, "--runs", 2, "--variants", "placeholder",
               "--json", path, "--quiet")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    rows = json.loads(path.read_text())["variants"]
    assert [r["name"] for r in rows] == ["placeholder", "placeholder"]
    assert rows[0]["target"] == "" and rows[1]["target"].startswith("grpc://127.0.0.1:")
    assert [r["bytes_fed_per_run"] for r in rows] == [X10 + W] * 2
    assert [r["bytes_fetched_per_run"] for r in rows] == [OUT10] * 2
    assert all(isinstance(r["fed_address_mod_64"], int) and 0 <= r["fed_address_mod_64"] < 64 for r in rows)
    # Every trial times its 2 later runs; the row holds them all.
    assert all(r["status"] == "ok" and r["max_abs_err"] <= 1e-9 and [len(t["runs_s"]) for t in r["trials"]] == [2] * 4
               and len(r["runs_s"]) == 8 for r in rows)
    assert "Remote sessions" in out and "Phases (" in out and "placeholder remote: later runs took" in words(out)


def test_two_task_cluster_keeps_x_on_the_ps_task_and_sends_it_every_run(mark, tmp_path):
    path = tmp_path / "out.json"
    proc = cli("compare", "--target", "local:ps,worker", "--no-baseline", "--returns", "sum", "--batch", 10,
               "--runs", 2, "--variants", "variable", "--json", path, "--quiet")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    (row,) = json.loads(path.read_text())["variants"]
    assert (row["data_device"], row["network_device"]) == ("/job:ps/task:0", "/job:worker/task:0")
    assert row["traced_between_tasks_bytes"] == X10
    assert (row["bytes_fed_per_run"], row["bytes_fetched_per_run"]) == (0, 8) and row["max_abs_err"] <= 1e-9
    assert f"{X10:,} bytes should cross between the tasks per run, the same as a traced run" in words(out)


def _run_in_thread(task, timeout=None):
    """Run one remote task through the job's runner in a thread; return (thread, result holder)."""
    config = spec.Config(batch=10, runs=2, variants=("placeholder",), target="local")
    progress = runner.Progress(1, quiet=True)
    result = {}
    thread = threading.Thread(target=lambda: result.update(
        doc=network.worker_runner(config)(task, "t", progress, timeout)))
    thread.start()
    return thread, result


def _wait_for(mark, module, seconds=120):
    """The pid of a marked process running `module`, once it exists."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pids = [p for p in marked(mark) if module in cmdline(p)]
        if pids:
            return pids[0]
        time.sleep(0.2)
    raise AssertionError(f"no {module} process appeared")


def test_a_failed_worker_ends_its_server(mark):
    # A dtype the worker does not know: it refuses its flags and exits 2, a real failure while its server runs.
    thread, result = _run_in_thread(SeedTask(variant="placeholder", batch=10, dtype="int8", target="local"))
    thread.join(300)
    assert result["doc"]["status"] == "failed"
    assert result["doc"]["error"].startswith("worker exited with status 2: ")


def test_a_crashed_worker_becomes_a_failed_row_and_ends_its_server(mark):
    thread, result = _run_in_thread(SeedTask(variant="placeholder", batch=10, runs=10**7, target="local"))
    os.kill(_wait_for(mark, "tfgraphs.worker.network"), signal.SIGKILL)
    thread.join(300)
    assert result["doc"] == {"status": "failed", "error": "worker killed by signal SIGKILL (out of memory? try a "
                                                          "smaller --batch)", "worker_start": "forked"}


def test_a_server_killed_mid_run_fails_the_row_instead_of_hanging(mark):
    thread, result = _run_in_thread(SeedTask(variant="placeholder", batch=10, runs=10**7, target="local"))
    _wait_for(mark, "tfgraphs.worker.network")
    os.kill(_wait_for(mark, "tfgraphs.worker.server"), signal.SIGKILL)
    thread.join(300)
    assert not thread.is_alive()
    assert result["doc"]["status"] == "failed"
    assert "server local" in result["doc"]["error"] and "during the run" in result["doc"]["error"]


def test_a_timed_out_worker_ends_its_server(mark):
    thread, result = _run_in_thread(SeedTask(variant="placeholder", batch=10, runs=10**7, target="local"), timeout=1)
    thread.join(300)
    assert result["doc"]["error"] == "worker killed after the 1 s timeout"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_ends_the_worker_and_the_server(mark, sig):
    proc = cli("compare", "--target", "local", "--no-baseline", "--batch", 10, "--runs", 10**6,
               "--variants", "placeholder")
    try:
        _wait_for(mark, "tfgraphs.worker.network")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:   # the test failed before the signal: end the command, whose end ends the rest
            proc.kill()
            proc.wait()
    # Ctrl-C is 130; SIGTERM ends the command as a signal does, 128 + 15, and says so.
    ending = {signal.SIGINT: (130, "tfgraphs: interrupted"), signal.SIGTERM: (143, "tfgraphs: ended by SIGTERM")}[sig]
    assert (proc.returncode, err.strip().splitlines()[-1]) == ending


def test_an_unreachable_target_exits_2_with_one_line_before_measuring(mark):
    port = servers.free_port()
    t0 = time.monotonic()
    proc = cli("compare", "--target", f"grpc://127.0.0.1:{port}", "--connect-timeout", 1, "--batch", 10)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.splitlines() == [f"tfgraphs: cannot reach grpc://127.0.0.1:{port} within 1 s (Connection refused); "
                                f"start a server there, e.g. `tfgraphs server --port {port}`, or use --target local"]
    assert time.monotonic() - t0 < 30


def test_reachability_tells_a_listening_port_from_a_closed_one():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        assert servers.unreachable("127.0.0.1", s.getsockname()[1], 1) is None
    assert servers.unreachable("127.0.0.1", servers.free_port(), 0.5) == "Connection refused"


def test_a_feed_past_the_grpc_message_limit_is_refused_before_any_worker():
    batch = spec.GRPC_MESSAGE_LIMIT // (32 * 32 * 8) + 1
    plan = network.plan(spec.Config(batch=batch, variants=("placeholder", "variable"), target="local",
                                       baseline=False, returns=("sum",), trials=1))
    assert plan.refused == {("placeholder", "sum"): plan.notices[0]}
    assert "feed of" in plan.notices[0] and "gRPC message limit of 2,147,483,647 bytes" in plan.notices[0]
    assert plan.workers == 1
    assert spec.remote_refusal("placeholder", batch - 1, "float64", "sum") is None


def test_an_output_past_the_grpc_message_limit_is_refused_unless_summed():
    # The output [N,15,15,6] is larger than X [N,32,32,1], so it reaches the limit first.
    big = spec.GRPC_MESSAGE_LIMIT // (15 * 15 * 6 * 8) + 1
    assert "fetched output" in spec.remote_refusal("variable", big, "float64", "output")
    assert spec.remote_refusal("variable", big - 1, "float64", "output") is None
    assert spec.remote_refusal("variable", big, "float64", "sum") is None


@pytest.mark.parametrize("text", ["remote", "grpc://127.0.0.1", "grpc://:80", "local:worker,ps", "grpc://h:99999"])
def test_a_bad_target_is_a_usage_error(text):
    with pytest.raises(UsageError, match="is not local, local:ps,worker or grpc://HOST:PORT"):
        spec.parse_target(text)


def _row(variant, laters, target="", returns="output", **kw):
    """A row of one fresh worker per value of laters, each worker's later runs with that median."""
    return Row.from_trials(variant, [Measurement(first_run_s=later * 3, runs_s=(later, later), graph_bytes=500,
                                                 target=target, returns=returns, **kw) for later in laters])


def _report(*rows):
    return results("compare", {"batch": 10, "dtype": "float64"}, rows)


def test_feed_cost_sentence_follows_the_numbers():
    url = "grpc://127.0.0.1:1"
    slow = _report(_row("placeholder", [0.20, 0.21] * 4, url, bytes_fed_per_run=5), _row("variable", [0.10, 0.11] * 4, url))
    (said,) = why.sentences_of_rows([why.feed_cost], slow.rows)
    assert ("placeholder 205.0 ms against variable 105.0 ms median, sending 5 bytes each time: the fed variant's "
            "runs took longer, differs (x1.95, 95% CI x1.81 to x2.10; n=8 and 8, p<0.001).") in said
    # Interleaved workers' later runs: not called a cost, and not "no difference" either when the interval is this wide.
    mixed = _report(_row("placeholder", [0.10, 0.13, 0.16, 0.19], url), _row("variable", [0.11, 0.14, 0.17, 0.20], url))
    (said,) = why.sentences_of_rows([why.feed_cost], mixed.rows)
    assert ": cannot tell with n=4 and 4 (x0.93, 95% CI" in said and "took longer" not in said
    # Two workers a side cannot tell, whatever their later runs.
    few = _report(_row("placeholder", [0.20, 0.21], url), _row("variable", [0.10, 0.11], url))
    assert ("cannot tell with n=2 and 2 (a rank test needs 4 a side); run with --trials 4 or more to tell."
            in why.sentences_of_rows([why.feed_cost], few.rows)[0])
    close = _report(_row("placeholder", [0.100, 0.101, 0.102, 0.103] * 3), _row("variable", [0.1005, 0.1015, 0.1025, 0.1035] * 3))
    assert "no difference beyond 25% (x" in why.sentences_of_rows([why.feed_cost], close.rows)[0]


def test_compare_asks_for_more_full_trials_where_its_later_runs_are_too_few():
    # compare's later runs come from its --full-trials workers alone: more --trials would add none.
    rows = (_row("placeholder", [0.20, 0.21]), _row("variable", [0.10, 0.11]))
    few = results("compare", {"batch": 10, "dtype": "float64", "trials": 4, "full_trials": 1}, rows)
    said = " ".join(why.answer_and_findings(few)[1])
    assert "run with --full-trials 4 or more to tell" in said and "--trials 4" not in said.replace("--full-trials", "")
    # Where every trial ran later runs (a document before --full-trials, or --full-trials equal to --trials).
    every = results("compare", {"batch": 10, "dtype": "float64", "trials": 2, "full_trials": 2}, rows)
    assert "--full-trials" not in " ".join(why.answer_and_findings(every)[1])


def test_an_in_process_feed_says_where_its_data_started_and_a_remote_one_does_not():
    fed, once = [0.20, 0.21] * 4, [0.10, 0.11] * 4
    here = _report(_row("placeholder", fed, bytes_fed_per_run=5, fed_address_mod_64=16), _row("variable", once))
    (said,) = why.sentences_of_rows([why.feed_cost], here.rows)
    assert ("median, feeding 5 bytes each time, in the 8 workers that recorded it, from data 16 bytes past a "
            "64-byte boundary (TF_NewTensor, "
            "tensorflow/c/tf_tensor.cc, uses an array in place when its address is a multiple of "
            "EIGEN_MAX_ALIGN_BYTES, a constant of the build, and copies it otherwise;") in said
    assert "sent" not in said and "sending" not in said
    url = "grpc://127.0.0.1:1"
    far = _report(_row("placeholder", fed, url, bytes_fed_per_run=5, fed_address_mod_64=16), _row("variable", once, url))
    (said,) = why.sentences_of_rows([why.feed_cost], far.rows)
    assert "sending 5 bytes each time:" in said and "64-byte boundary" not in said
    unknown = _report(_row("placeholder", fed, bytes_fed_per_run=5), _row("variable", once))
    assert "64-byte boundary" not in why.sentences_of_rows([why.feed_cost], unknown.rows)[0]


def test_one_slow_run_does_not_hide_a_feed_cost():
    # compare --returns sum printed "placeholder 162.3 ms against variable 130.6 ms median: no measurable difference
    # against a spread of 288.0 ms": the 288 ms was one slow run. The later runs of two variants come from different
    # workers, one median a worker: the rank test weighs a slow worker as one of ten.
    fed = [0.160, 0.161, 0.162, 0.1623, 0.163, 0.164, 0.165, 0.166, 0.162, 0.45]
    once = [0.128, 0.129, 0.130, 0.1306, 0.131, 0.132, 0.133, 0.130, 0.131, 0.129]
    medians_apart = abs(statistics.median(fed) - statistics.median(once))
    assert medians_apart < max(fed) - min(fed)   # what the range rule compared: "no measurable difference"
    (said,) = why.sentences_of_rows([why.feed_cost], _report(_row("placeholder", fed, returns="sum"),
                                                          _row("variable", once, returns="sum")).rows)
    assert ("placeholder 162.7 ms against variable 130.3 ms median: the fed variant's runs took longer, differs (x1.25, 95% CI "
            "x1.23 to x1.27; n=10 and 10, p<0.001).") in said


COMPUTES = {"partition_computes": {"Conv2D": True, "AvgPool": True, "Relu": True}}
SUM_FOLDED = {"partition_computes": {"Conv2D": False, "AvgPool": False, "Relu": False}}


def test_remote_over_local_and_fetch_cost_sentences():
    url = "grpc://127.0.0.1:1"
    rows = (_row("placeholder", [0.1, 0.1], **COMPUTES),
            _row("placeholder", [0.3, 0.3], url, bytes_fetched_per_run=800, **COMPUTES),
            _row("placeholder", [0.1, 0.1], url, "sum", bytes_fetched_per_run=8, **COMPUTES))
    assert why.sentences_of_rows([why.remote_over_local], rows) == [
        "placeholder remote: later runs took 300.0 ms median against 100.0 ms in-process: cannot tell with n=2 and 2 "
        "(a rank test needs 4 a side); run with --trials 4 or more to tell."]
    assert ("the whole output (800 bytes) took 300.0 ms per run against 100.0 ms for its sum (8 bytes): cannot tell "
            "with n=2 and 2") in why.sentences_of_rows([why.fetch_cost], rows)[0]
    many = (_row("placeholder", [0.1, 0.11] * 3, **COMPUTES),
            _row("placeholder", [0.3, 0.31] * 3, url, bytes_fetched_per_run=800, **COMPUTES),
            _row("placeholder", [0.1, 0.11] * 3, url, "sum", bytes_fetched_per_run=8, **COMPUTES))
    assert why.sentences_of_rows([why.remote_over_local], many) == [
        "placeholder remote: later runs took 305.0 ms median against 105.0 ms in-process: differs (x2.91, 95% CI "
        "x2.72 to x3.10; n=6 and 6, p=0.0022)."]
    assert ("the whole output (800 bytes) took 305.0 ms per run against 105.0 ms for its sum (8 bytes): differs "
            "(x2.91") in why.sentences_of_rows([why.fetch_cost], many)[0]
    # A sum that folded computes nothing: its later runs say nothing about what fetching costs.
    folded = rows[:2] + (_row("placeholder", [0.001, 0.001], url, "sum", bytes_fetched_per_run=8, **SUM_FOLDED),)
    assert why.sentences_of_rows([why.fetch_cost], folded) == [
        "placeholder remote: fetching the sum folded the network (no Conv2D in the graph that ran; partition "
        "graphs), so its 1.0 ms later runs compute nothing and say nothing about the cost of fetching."]
    # Without the partition graphs there is no evidence either way, so no fetch cost is said.
    bare = tuple(_row(r.variant, list(r.later_medians_s), r.target, r.returns, bytes_fetched_per_run=r.bytes_fetched_per_run)
                 for r in rows)
    assert why.sentences_of_rows([why.fetch_cost], bare) == [] and (
        why.sentences_of_rows([why.remote_over_local], bare) == why.sentences_of_rows([why.remote_over_local], rows))


def test_between_tasks_notices_a_traced_count_that_disagrees():
    row = _row("variable", [0.1, 0.1], "grpc://127.0.0.1:1", network_device="/job:worker/task:0",
               data_device="/job:ps/task:0", traced_between_tasks_bytes=X10 - 1)
    (said,) = why.between_tasks([row], 10, "float64")
    assert f"{X10:,} bytes should cross" in said and f"but a traced run reported {X10 - 1:,} bytes" in said


def test_received_bytes_counts_only_tensors_from_another_task():
    from tensorflow.core.framework import step_stats_pb2

    from tfgraphs.worker.network import received_bytes

    stats = step_stats_pb2.StepStats()
    dev = stats.dev_stats.add(device="/job:worker/replica:0/task:0/device:CPU:0")
    for sender, size in (("/job:ps/replica:0/task:0/device:CPU:0", 100), ("/job:worker/replica:0/task:0/device:CPU:0", 7)):
        node = dev.node_stats.add(node_name="RecvTensor", timeline_label=f"RecvTensor from {sender} to x")
        node.output.add().tensor_description.allocation_description.requested_bytes = size
    assert received_bytes(stats) == 100


def test_older_rows_load_without_remote_fields_and_round_trip():
    row = Row.from_dict({"name": "placeholder", "status": "ok", "runs_s": [0.1], "trials": []})
    assert (row.target, row.bytes_fed_per_run, row.remote) == (None, None, False)
    assert "target" not in row.to_dict()


def test_rows_per_variant_follow_baseline_and_fetch(monkeypatch):
    from tests import fakes

    fake = fakes.install(monkeypatch, lambda task, env: fakes.seed_document(target=task.target or "",
                                                                             returns=task.returns))
    url = "grpc://127.0.0.1:1"
    for baseline, expected in ((True, [None, None, url, url]), (False, [url, url])):
        config = spec.Config(batch=10, runs=2, variants=("variable",), target=url, baseline=baseline,
                                returns=("output", "sum"), trials=1)
        fake.calls.clear()
        report = network.run(config, network.plan(config), runner.Progress(9, quiet=True))
        assert [t.target for t in fake.tasks] == expected
        assert [(r.target or None, r.returns) for r in report.rows] == list(zip(expected, ["output", "sum"] * 2))
        assert report.to_dict()["config"]["target"] == url


@pytest.mark.parametrize("baseline, targets", [(True, [None, URL]), (False, [URL])])
def test_explain_measures_in_process_rows_beside_the_remote_ones(monkeypatch, baseline, targets):
    from tests import fakes
    from tfgraphs.jobs.network import EXPLAIN as explain

    fake = fakes.install(monkeypatch, lambda task, env: fakes.seed_document(target=task.target or "", top_ops=[]))
    config = spec.ExplainConfig(batch=10, runs=2, variants=("constant",), presets=("default", "bare"), target=URL,
                            baseline=baseline)
    plan = explain.plan(config)
    report = explain.run(config, plan, runner.Progress(plan.workers, quiet=True))
    # explain runs EXPLAIN_TRIALS fresh timed workers per row (in rotating order), then one traced worker per row.
    # The single-threaded evaluation beside the folding share is the in-process folder's cost, so it stays local.
    asked = [(t.mode, t.target, t.preset) for t in fake.tasks]
    timed = len(targets) * 2 * EXPLAIN_TRIALS
    assert sorted(asked[:timed], key=str) == sorted(
        [("timed", t, p) for t in targets for p in ("default", "bare")] * EXPLAIN_TRIALS, key=str)
    assert asked[timed:] == (
        [("traced", t, p) for t in targets for p in ("default", "bare")] + [("single-thread", None, "default")])
    assert plan.workers == len(fake.tasks)
    assert [(r.target, r.preset) for r in report.rows] == [(t or "", p) for t in targets for p in ("default", "bare")]
    assert all(len(r.first_runs_s) == EXPLAIN_TRIALS for r in report.rows)
    assert [a["remote"] for a in report.attribution] == [bool(t) for t in targets]


def test_explain_keeps_the_in_process_rows_of_a_variant_too_big_to_send(monkeypatch):
    from tests import fakes
    from tfgraphs.jobs.network import EXPLAIN as explain

    fake = fakes.install(monkeypatch, lambda task, env: fakes.seed_document(target=task.target or "", top_ops=[]))
    batch = spec.GRPC_MESSAGE_LIMIT // (32 * 32 * 8) + 1     # X alone is past one gRPC message
    config = spec.ExplainConfig(batch=batch, runs=2, variants=("placeholder",), presets=("default",), target=URL)
    plan = explain.plan(config)
    # In-process only: EXPLAIN_TRIALS timed workers, one traced, one single-threaded.
    assert ("placeholder", "output") in plan.refused and plan.workers == EXPLAIN_TRIALS + 2
    explain.run(config, plan, runner.Progress(plan.workers, quiet=True))
    assert [t.target for t in fake.tasks] == [None] * (EXPLAIN_TRIALS + 2)


def _explained(rows):
    from tfgraphs.records.explain import attributions

    return results("explain", {"batch": 10, "dtype": "float64", "runs": 2, "trials": 1, "target": "local"}, rows,
                  extra={"attribution": attributions(rows)})


@pytest.mark.parametrize("remote_first, trials, said, sends", [
    (0.9, 4, "constant remote: the first run paid 796.0 ms beyond the later runs against 196.0 ms in-process: "
             "differs (x4.06, 95% CI x3.95 to x4.22; n=4 and 4, p=0.029); remotely the first run also sends the "
             "500-byte GraphDef to the server.", True),
    # No extra measured: sending the graph is not offered as a reason.
    (0.305, 4, "constant remote: the first run paid 201.0 ms beyond the later runs against 196.0 ms in-process: no "
               "difference beyond 25% (x1.03, 95% CI x0.97 to x1.08; n=4 and 4, p=0.34).", False),
    # Three fresh workers a side, 600 ms apart: no rank test can tell at n=3, so neither is a reason offered.
    (0.9, 3, "constant remote: the first run paid 795.0 ms beyond the later runs against 195.0 ms in-process: "
             "cannot tell with n=3 and 3 (a rank test needs 4 a side); run with --trials 4 or more to tell.", False),
    (0.9, 1, "constant remote: the first run paid 795.0 ms beyond the later runs against 195.0 ms in-process: "
             "cannot tell with n=1 and 1 (a rank test needs 4 a side); run with --trials 4 or more to tell.",
     False)])
def test_explain_sets_each_remote_attribution_beside_its_in_process_one(remote_first, trials, said, sends):
    from tfgraphs.findings.explain import answer_and_findings
    from tfgraphs.api.commands import render

    # Each trial's first run is a few ms off its row's median either way.
    offsets = (0.0, -0.005, 0.005, 0.002)[:trials]
    rows = []
    for target, first in (("", 0.3), (URL, remote_first)):
        for preset, extra in (("default", 1.0), ("no-grappler", 0.5), ("no-folding", 0.8), ("bare", 0.1)):
            ms = [Measurement(first_run_s=0.1 + (first - 0.1) * extra + o, runs_s=(0.1, 0.11), graph_bytes=500,
                              target=target, returns="output") for o in offsets]
            rows.append(Row.from_trials("constant", ms, preset=preset))
    report = _explained(tuple(rows))
    found = report.attribution
    assert [(a["variant"], a["remote"]) for a in found] == [("constant", False), ("constant", True)]
    assert found[1]["grappler_s"] == pytest.approx((remote_first - 0.1) * 0.5)
    text = words(" ".join(answer_and_findings(report)[1]))
    assert said in text and ("also sends" in text) == sends
    assert text.count("constant remote: of the") == 1 and text.count("constant: of the") == 1
    page = render(report).split("\n\n", 2)[2]   # the tables, past the header and the answer
    # The preset table, then the attribution table (four trials a side add one of the parts told apart after them).
    assert [line.split()[:2] for line in page.splitlines() if line.startswith("constant")][:10] == (
        [["constant", p] for p in ("default", "no-grappler", "no-folding", "bare")]
        + [["constant", "remote"]] * 4 + [["constant", _in_unit(found[0]["excess_s"])],
                                         ["constant", "remote"]])


def _in_unit(seconds):
    return f"{seconds * 1e3:.3g}"


def test_explain_on_a_fresh_local_server_measures_both_places(mark, tmp_path):
    path = tmp_path / "out.json"
    proc = cli("explain", "--target", "local", "--batch", 10, "--runs", 2, "--trials", 1, "--variants", "constant",
               "--presets", "default", "--json", path, "--quiet")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    doc = json.loads(path.read_text())
    assert [(r["name"], r["preset"], r["target"][:16]) for r in doc["runs"]] == [
        ("constant", "default", ""), ("constant", "default", "grpc://127.0.0.1")]
    assert [a["remote"] for a in doc["attribution"]] == [False, True]
    assert (doc["config"]["target"], doc["config"]["baseline"]) == ("local", True)
    assert all(r["status"] == "ok" and r["max_abs_err"] <= 1e-9 for r in doc["runs"])
    assert "constant remote: the first run paid" in words(out) and "in-process" in words(out)
    again = subprocess.run([sys.executable, "-m", "tfgraphs", "report", str(path)], capture_output=True, text=True,
                           timeout=120)
    assert again.stdout == out


def test_server_prints_its_target_and_stops_on_sigterm(mark):
    port = servers.free_port()
    proc = cli("server", "--port", port)
    assert proc.stdout.readline().startswith(f"serving grpc://127.0.0.1:{port} (pid ")
    assert servers.unreachable("127.0.0.1", port, 5) is None
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert (proc.returncode, out) == (0, "stopped\n")


@pytest.mark.parametrize("args, said", [
    (["--cluster", "ps=127.0.0.1:1", "--job", "worker"], "--job worker --task 0 is not in --cluster"),
    (["--cluster", "ps"], "--cluster part 'ps' is not JOB=HOST:PORT"),
    (["--cluster", "ps=127.0.0.1:1", "--port", "5"], "give --port or --cluster, not both"),
])
def test_server_refuses_a_bad_cluster_in_one_line(args, said, capfd):
    proc = run_main(capfd, "server", *args)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and said in proc.stderr


def test_an_explain_document_from_before_the_in_process_rows_reads_as_remote():
    from tfgraphs.findings.explain import answer_and_findings
    from tfgraphs.api.commands import render

    rows = tuple(Row.from_trials("constant", [Measurement(first_run_s=0.1 + 0.8 * extra, runs_s=(0.1, 0.11),
                                                          graph_bytes=500, target=URL, returns="output")], preset=p)
                 for p, extra in (("default", 1.0), ("no-grappler", 0.5), ("no-folding", 0.8), ("bare", 0.1)))
    now = _explained(rows)
    # Then every session ran on the target and the attribution carried no "remote".
    before = results("explain", now.config, rows, extra={"attribution": [
        {k: v for k, v in a.items() if k != "remote"} for a in now.attribution]})
    assert answer_and_findings(before)[1] == answer_and_findings(now)[1] and render(before) == render(now)
    assert "constant remote: of the 795.0 ms" in words(render(before))


def test_report_a_b_pairs_remote_rows_with_remote_rows():
    from pathlib import Path

    from tfgraphs.findings.files import lines
    from tfgraphs.records.results import load

    doc = json.loads((Path(__file__).parent / "fixtures" / "explain-remote.json").read_text())
    found = lines(load(doc), load(doc))
    presets = ("", " [no-grappler]", " [no-folding]", " [bare]")
    assert list(dict.fromkeys(f["row"] for f in found)) == (
        [f"constant{p}" for p in presets] + [f"constant{p} remote" for p in presets])
    first = {f["row"]: f["a"] for f in found if f["phase"] == "first run"}
    assert first["constant remote"] == next(r["first_run_s"] for r in doc["runs"] if r["target"])


@pytest.mark.parametrize("command", ["compare", "explain"])
def test_no_baseline_without_a_target_is_refused_in_one_line(command, capsys):
    from tfgraphs.cli import main

    assert main([command, "--no-baseline", "--batch", "10"]) == 2
    assert capsys.readouterr().err == ("tfgraphs: --no-baseline needs --target: without one only in-process rows "
                                       "are measured\n")


def test_a_crashed_remote_worker_stays_a_remote_row(monkeypatch):
    from tests import fakes
    from tfgraphs.jobs.network import EXPLAIN as explain

    def answer(task, env):
        if task.target and task.preset == "bare":
            return fakes.failed_document()   # a crashed worker's document names no target
        return fakes.seed_document(target=task.target or "", top_ops=[])

    fakes.install(monkeypatch, answer)
    config = spec.ExplainConfig(batch=10, runs=2, variants=("constant",), target=URL)
    plan = explain.plan(config)
    report = explain.run(config, plan, runner.Progress(plan.workers, quiet=True))
    failed = [r for r in report.rows if not r.ok]
    assert [(r.preset, r.remote, r.label) for r in failed] == [("bare", True, "constant [bare] remote")]
    local, remote = report.attribution
    assert not local["remote"] and local["grappler_s"] is not None   # all four in-process presets ran
    assert remote["remote"] and remote["grappler_s"] is None          # the remote bare run is missing


def test_a_refused_remote_row_is_named_remote(monkeypatch):
    from tests import fakes

    fakes.install(monkeypatch, lambda task, env: fakes.seed_document(target=task.target or ""))
    batch = spec.GRPC_MESSAGE_LIMIT // (32 * 32 * 8) + 1     # X alone is past one gRPC message
    config = spec.Config(batch=batch, runs=2, variants=("placeholder",), target=URL)
    report = network.run(config, network.plan(config), runner.Progress(9, quiet=True))
    assert [(r.ok, r.remote) for r in report.rows] == [(True, False), (False, True)]
