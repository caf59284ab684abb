"""shapes: blocked_conv1d against tf.nn.conv1d, trace counts from real workers, JSON, report, bad input.

One real run (a worker process per mode) is shared by the tests that read it; processes of their own also show that
the package imports TensorFlow only when asked and that a report renders without it. Bad input runs
tfgraphs.cli.main in this process, and once from a fresh interpreter.
"""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fakes
from conftest import run_cli, run_main, words
from tfgraphs.cli import main
from tfgraphs.errors import UsageError
from tfgraphs.findings import shapes as shapes_why
import tfgraphs
from tfgraphs.jobs import runner, shapes
from tfgraphs.records.results import Results, load
from tfgraphs.records.rows import ModeRun
from tfgraphs.records.stats import paired
from tfgraphs.spec.shapes import MODES, ONEDNN, SWITCHES_ON
from tfgraphs.spec.shapes import ShapesTask
from tfgraphs.spec.tasks import from_argv

TINY = dict(start=40, count=5, batch=2, channels=3, filters=2, kernel=4, block=8, passes=2)


def _flags(**kw):
    return [x for k, v in {**TINY, **kw}.items() for x in (f"--{k}", v)]


@pytest.fixture(scope="module")
def tf():
    import tensorflow
    return tensorflow


@pytest.fixture(scope="module")
def shapes_json(tmp_path_factory):
    """One tiny real run of every mode (and eager with the switch off), shared by the tests that read it."""
    path = tmp_path_factory.mktemp("shapes") / "out.json"
    proc = run_cli("shapes", *_flags(), "--json", path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    return path, json.loads(path.read_text()), proc


def modes(doc, off=False):
    switch = doc["switch"]
    return {m["mode"]: m for m in doc["modes"] if (m["env"].get(switch) == "0") == off}


# blocked_conv1d

@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 3), kernel=st.integers(1, 6), extra=st.integers(0, 40), channels=st.integers(1, 4),
       filters=st.integers(1, 3), block=st.integers(1, 17), per_call=st.integers(1, 4), seed=st.integers(0, 2**16))
@example(n=1, kernel=5, extra=0, channels=2, filters=2, block=4, per_call=8, seed=0)    # length == kernel
@example(n=2, kernel=3, extra=30, channels=3, filters=1, block=7, per_call=2, seed=1)   # 31 outputs, blocks of 7
@example(n=3, kernel=1, extra=15, channels=1, filters=1, block=1, per_call=1, seed=2)   # one-sample blocks
def test_blocked_equals_conv1d(tf, n, kernel, extra, channels, filters, block, per_call, seed):
    from tfgraphs.worker.blocked import blocked_conv1d

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, kernel + extra, channels), dtype=np.float32)
    w = rng.standard_normal((kernel, channels, filters), dtype=np.float32)
    want = tf.nn.conv1d(x, w, stride=1, padding="VALID").numpy()
    got = blocked_conv1d(x, w, block, per_call).numpy()
    assert got.shape == want.shape == (n, extra + 1, filters)
    assert np.max(np.abs(got - want)) <= 1e-5 * max(np.max(np.abs(want)), 1e-30)


def test_blocked_convolution_sees_one_shape(tf, monkeypatch):
    from tfgraphs.worker.blocked import blocked_conv1d, conv_input_shape

    seen, conv1d = [], tf.nn.conv1d

    def spy(x, *args, **kwargs):
        seen.append(tuple(x.shape))
        return conv1d(x, *args, **kwargs)

    monkeypatch.setattr(tf.nn, "conv1d", spy)
    w = np.ones((4, 3, 2), np.float32)
    for n, length in ((1, 4), (2, 9), (3, 40), (1, 41), (5, 100)):   # eager: every call is seen
        blocked_conv1d(np.ones((n, length, 3), np.float32), w, 8)
    f = tf.function(lambda x: blocked_conv1d(x, w, 8), input_signature=[tf.TensorSpec([None, None, 3])])
    for length in (4, 50, 77):
        f(np.ones((2, length, 3), np.float32))
    assert len(seen) > 5 and set(seen) == {conv_input_shape(4, 3, 8)}
    assert f.experimental_get_tracing_count() == 1


def test_blocked_rejects_bad_block(tf):
    from tfgraphs.worker.blocked import blocked_conv1d
    with pytest.raises(ValueError, match="block_len"):
        blocked_conv1d(np.ones((1, 5, 1), np.float32), np.ones((2, 1, 1), np.float32), 0)


def test_exported_lazily():
    code = ("import sys, tfgraphs; assert 'tensorflow' not in sys.modules; f = tfgraphs.blocked_conv1d; "
            "assert 'tensorflow' in sys.modules and f.__module__ == 'tfgraphs.worker.blocked'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


# real workers

def test_envelope_and_config(shapes_json):
    _, doc, _ = shapes_json
    assert doc["schema"] == 1 and doc["tool"] == "tfgraphs" and doc["command"] == "shapes"
    assert doc["tf_version"] and doc["python"] and doc["machine"]["cpu_count"] >= 1
    assert doc["config"] == {**TINY, "seed": 0, "dtype": "float32", "modes": list(MODES),
                             "switch_modes": ["eager"]}


def test_every_mode_timed_per_pass_and_length(shapes_json):
    _, doc, _ = shapes_json
    assert [m["mode"] for m in doc["modes"]] == [*MODES, "eager"]
    lengths = range(TINY["start"], TINY["start"] + TINY["count"])
    for m in doc["modes"]:
        assert m["status"] == "ok" and m["error"] is None and m["device"].endswith("device:CPU:0")
        assert len(m["times_s"]) == 2 and all(len(p) == 5 and min(p) > 0 for p in m["times_s"])
        # The first length is left out: its first call is the worker's start-up.
        want = [float(np.median([2 * n / 1000 / s for n, s in zip(lengths[1:], p[1:])])) for p in m["times_s"]]
        assert m["khz"] == pytest.approx(want)
        assert m["max_rel_err"] <= 1e-4


def test_trace_counts(shapes_json):
    m = modes(shapes_json[1])
    assert m["function"]["traces"] == TINY["count"]       # one trace per distinct length
    # The first length traces its exact shape; the second a relaxed [2, None, 3] that every later length fits.
    assert m["function-relaxed"]["traces"] == 2
    assert m["function-signature"]["traces"] == 1
    assert m["blocked"]["traces"] == 1
    assert m["graph"]["traces"] == 1                      # graphs built: one, fed every length
    assert m["eager"]["traces"] is None and m["keras"]["traces"] is None


def test_graph_built_in_the_first_call_and_counted(tf):
    from tfgraphs.worker import shapes as shapes_worker

    task = from_argv(ShapesTask, [*map(str, _flags(seed=0)), "--mode", "graph"])
    x, w = shapes_worker.make_data(task)
    call, traces, device = shapes_worker.build(tf, "graph", w, task)
    assert traces() == 0 and device() is None
    for length in (40, 41, 44):
        y = call(np.ascontiguousarray(x[:, :length]))
        assert np.max(np.abs(y - tf.nn.conv1d(x[:, :length], w, stride=1, padding="VALID").numpy())) <= 1e-5
    assert traces() == 1 and device().endswith("CPU:0")


def test_blockeds_remedy_is_told_apart_from_the_fixed_signature(shapes_json):
    # Claim 12, on a real run: blocked fixes both the signature and the block's shape; whenever its remedy is said,
    # function-signature's own result (and its trace count) says what the signature alone did.
    doc = shapes_json[1]
    said = [s for s in shapes_why.sentences(load(doc)) if getattr(s, "kind", "") == "shapes._remedy"]
    assert "removed that penalty" not in " ".join(said)
    head = [s for s in said if "blocked (blocks of" in s]
    # function retraces on every new length, a cost far past the spread of a tiny call.
    assert head and "No mode paid measurably" not in head[0]
    traced = modes(doc)["function-signature"]["traces"]
    assert f"function-signature, which fixes only the input signature (it traced {traced} time" in words(head[0])
    # Without function-signature's trace count, nothing is said of what the signature alone did.
    bare = load({**doc, "modes": [{**m, "traces": None} if m["mode"] == "function-signature" else m
                                  for m in doc["modes"]]})
    assert "function-signature, which fixes only" not in " ".join(shapes_why.sentences(bare))


def test_switch_measured(shapes_json):
    _, doc, _ = shapes_json
    if any("GPU" in d for d in doc["machine"]["devices"]):
        pytest.skip("the GPU path is not tested")
    assert doc["switch"] == "TF_ENABLE_ONEDNN_OPTS"
    for m in modes(doc).values():
        assert m["env"] == {"TF_ENABLE_ONEDNN_OPTS": "1", "TF_CUDNN_USE_AUTOTUNE": "1"}
    off = modes(doc, off=True)
    assert list(off) == ["eager"] and off["eager"]["env"]["TF_ENABLE_ONEDNN_OPTS"] == "0"


def test_report_rerenders_without_tensorflow(shapes_json):
    path, doc, proc = shapes_json
    assert Results.from_dict(doc).to_dict() == doc
    code = ("import sys; sys.modules['tensorflow'] = None; from tfgraphs.cli import main; "
            f"sys.exit(main(['report', {str(path)!r}]))")
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert again.stdout == proc.stdout
    for title in ("Per mode (", "Backend switch (", "Per length (", "What this run shows:"):
        assert f"\n{title}" in again.stdout
    assert "cuDNN autotuning does not apply" in words(again.stdout)


def test_worker_timeout_is_a_failed_document():
    doc = runner.run_process(["-c", "import time; time.sleep(60)"], "x", runner.Progress(1, quiet=True), timeout=0.2)
    assert doc == {"status": "failed", "error": "worker killed after the 0.2 s timeout"}


def test_failed_mode_is_a_failed_row(tmp_path, monkeypatch, capsys):
    """A worker that fails (here function, and eager with the switch off) leaves a FAILED line and a failed row."""
    error = "worker killed by signal SIGKILL (out of memory? try a smaller --batch)"

    def answer(task, env):
        if task.mode == "function" or env[ONEDNN] == "0":
            return fakes.failed_document(error)
        return shapes_document(env)

    fakes.install(monkeypatch, answer)
    path = tmp_path / "out.json"
    assert main(["shapes", *map(str, _flags()), "--modes", "eager,function", "--json", str(path), "--quiet"]) == 1
    out = words(capsys.readouterr().out)
    assert out.endswith(f"FAILED function: {error} FAILED eager [TF_ENABLE_ONEDNN_OPTS=0]: {error}")
    assert "Every mode that finished matched" in out
    doc = json.loads(path.read_text())
    assert [(m["mode"], m["status"], m["error"]) for m in doc["modes"]] == [
        ("eager", "ok", None), ("function", "failed", error), ("eager", "failed", error)]
    assert doc["modes"][1]["times_s"] == [] and Results.from_dict(doc).to_dict() == doc


def shapes_document(env, traces=None):
    """A fake shapes worker's ok document: five lengths, two passes."""
    return {"status": "ok", "tf_version": "0", "devices": ["/physical_device:CPU:0"], "device": "/device:CPU:0",
            "traces": traces, "times_s": [[0.02] * 5, [0.01] * 5], "max_rel_err": 1e-7, "env": env}


# bad input

@pytest.mark.parametrize("flags, named", [
    (["--batch", "0"], "--batch"),
    (["--count", "-3"], "--count"),
    (["--channels", "x"], "--channels"),
    (["--block", "0"], "--block"),
    (["--kernel", "41"], "--kernel 41"),
    (["--modes", "eager,turbo"], "turbo"),
    (["--switch-modes", "nope"], "nope"),
    (["--modes", "eager", "--switch-modes", "function"], "--switch-modes function not in --modes"),
    (["--count", "2"], "--count 2 must be at least 3"),
    (["--seed", "-1"], "--seed -1 must be 0 or more"),
    (["--format", "nope"], "nope"),
])
def test_bad_input_exits_2(flags, named, capfd):
    proc = run_main(capfd, "shapes", *_flags(), *flags)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and named in proc.stderr


def test_bad_input_exits_2_from_a_fresh_process():
    proc = run_cli("shapes", *_flags(), "--kernel", "41")
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "--kernel 41" in proc.stderr


def test_plan_checks_settings_that_depend_on_each_other():
    assert shapes.plan(shapes.Config(**TINY)).workers == len(MODES) + 1
    assert shapes.plan(shapes.Config(**{**TINY, "count": 3})).workers == len(MODES) + 1
    for bad, said in ((dict(kernel=41), "--kernel 41 is longer than the shortest length (--start 40)"),
                      (dict(modes=("eager",), switch_modes=("function",)), "--switch-modes function not in --modes")):
        with pytest.raises(UsageError, match="^" + re.escape(said)):
            shapes.plan(shapes.Config(**{**TINY, **bad}))
    # A bound of one option is its declaration's, checked before any plan.
    with pytest.raises(UsageError, match="^--count 2 must be at least 3"):
        tfgraphs.shapes(**{**TINY, "count": 2})


def test_default_switch_mode_only_when_it_runs(monkeypatch, capsys):
    """--modes without eager runs no switch worker by default, rather than refusing the default."""
    fake = fakes.install(monkeypatch, lambda task, env: shapes_document(env, traces=5))
    assert main(["shapes", *map(str, _flags()), "--modes", "function", "--quiet"]) == 0
    assert [label for _, label, _ in fake.calls] == ["function"] and "oneDNN was not switched off in this run" in words(capsys.readouterr().out)


# sentences follow the numbers

def _report(times, traces=None):
    """A shapes report from {mode: (pass 1, pass 2)}, each a time for every length or a list, and {mode: traces}."""
    count = next((len(a) for a, _ in times.values() if isinstance(a, list)), TINY["count"])
    config = shapes.Config(**{**TINY, "count": count})
    rows = [ModeRun.from_worker(m, {"status": "ok", "device": "/device:CPU:0", "max_rel_err": 1e-7,
                                    "times_s": [p if isinstance(p, list) else [p] * count for p in (a, b)],
                                    "traces": (traces or {}).get(m), "env": dict(SWITCHES_ON)},
                                config.batch, config.lengths)
            for m, (a, b) in times.items()]
    return Results("shapes", config.to_dict(), tuple(rows), extra={"switch": ONEDNN})


def _cycle(base, shift, count=31):
    """base - 1 ms, base, base + 1 ms, repeating: every length differs, by a known spread."""
    return [base + 0.001 * ((i + shift) % 3 - 1) for i in range(count)]


def test_sentences_follow_the_numbers():
    said = " ".join(shapes_why.sentences(_report({"function": (0.03, 0.01), "blocked": (0.012, 0.012)})))
    assert ("Pass 1 was 3.00x slower than pass 2 in function (median over 4 lengths) and slower on 4 of them: each "
            "new length added 20.0 ms to a 10.0 ms call, beyond the 0.0 ms IQR of pass 2 itself.") in said
    assert ("blocked (blocks of 8, a fixed input signature and a fixed shape) paid no measurable penalty: a new "
            "length changed its call by +0.0 ms, against 20.0 ms in function") in said
    # Claim 12: with no function-signature mode, nothing separates the signature from the block's shape.
    assert "removed that penalty" not in said and "function-signature, which fixes only" not in said
    assert "its throughput on lengths already seen was 17% lower (pass 2: 7 kHz in blocked, 8 in function)" in said
    assert "On lengths seen for the first time, blocked ran at 7 kHz against 3 kHz for function (2.50x)." in said
    said = " ".join(shapes_why.sentences(_report({"function": (0.01, 0.01), "blocked": (0.012, 0.012)})))
    assert "slower than" not in said and "No mode paid measurably for new lengths" in said


@pytest.mark.parametrize("a, b, clear", [
    ([1.1] * 10, [1.0] * 10, True),                                  # steady, no spread
    ([x + 0.5 for x in range(1, 9)], list(range(1, 9)), False),     # always slower, but inside an IQR of 3.5
    ([6.0] * 7 + [0.0] * 3, [1.0] * 10, False),                      # 7 of 10 slower: under 80%
    ([6.0] * 8 + [0.0] * 2, [1.0] * 10, True),                       # 8 of 10: the boundary counts
])
def test_penalized_rule(a, b, clear):
    assert paired(a, b).larger is clear


def test_steady_small_penalty_is_measured():
    """The seed-size case: pass 1 119 +- 1 ms against pass 2 106 +- 1 ms on every length is a penalty, not noise."""
    function = _cycle(0.119, 0)
    function[0] = 2.0                                     # the worker's start-up, left out
    # The same five times, 104 to 108 ms, in two orders: pass 1 as often faster as slower, no steady difference.
    flat = tuple([0.106 + 0.001 * ((i * k) % 5 - 2) for i in range(31)] for k in (3, 7))
    report = _report({"function": (function, _cycle(0.106, 1)), "function-signature": flat,
                      "blocked": tuple([t + 0.002 for t in p] for p in flat)},
                     {"function": 31, "function-signature": 1, "blocked": 1})
    c = shapes_why.cost(report.rows[0])
    assert c.first_s == 2.0 and len(c.new) == len(c.seen) == 30 and c.new_s == pytest.approx(0.119)
    assert (c.penalty.above, c.penalty.n) == (30, 30) and c.penalized
    assert c.penalty.delta == pytest.approx(0.012) and c.penalty.spread == pytest.approx(0.002)
    assert not shapes_why.cost(report.rows[1]).penalized and not shapes_why.cost(report.rows[2]).penalized
    said = " ".join(shapes_why.sentences(report))
    assert ("Pass 1 was 1.11x slower than pass 2 in function (median over 30 lengths) and slower on 30 of them: each "
            "new length added 12.0 ms to a 106.0 ms call, beyond the 2.0 ms IQR of pass 2 itself.") in said
    assert ("A new length cost nothing measurable by the rule in the legend in function-signature (+0.0 ms against "
            "an IQR of 2.0 ms, slower on 12 of 30 lengths) and blocked (+0.0 ms against an IQR of 2.0 ms, slower on "
            "12 of 30 lengths).") in said
    assert ("function's pass-1 call took 119.0 ms against 106.0 ms for function-signature, which traced 1 time to "
            "function's 31: retracing explains all of function's new-length cost (judged against 2.0 ms") in said
    assert ("Pass 1 was 1.11x slower than pass 2 in function; blocked (blocks of 8, a fixed input signature and a "
            "fixed shape) paid no measurable penalty: a new length changed its call by +0.0 ms, against 12.0 ms in "
            "function") in said
    # The fixed signature alone (function-signature) paid nothing either: the effect is the signature's.
    assert ("function-signature, which fixes only the input signature (it traced 1 time), paid nothing measurable "
            "per new length by the paired rule (+0.0 ms against its own IQR of 2.0 ms, slower on 12 of 30 lengths): "
            "the fixed signature alone removed function's penalty in this run.") in said
    assert "removed that penalty" not in said
    assert ("The very first call in each worker took 104.0 ms to 2.00 s, up to 16.8x a median pass-1 call "
            "(function): a one-time start-up cost, not a per-length one, so the first length is left out") in said


def test_retracing_sentence_follows_the_trace_counts():
    times = {"function": (0.03, 0.01), "function-signature": (0.01, 0.01), "graph": (0.01, 0.01)}
    said = " ".join(shapes_why.sentences(_report(times, {"function": 5, "function-signature": 1, "graph": 1})))
    assert "For 5 distinct lengths, tf.function traced function 5 times and function-signature 1 time." in said
    assert "graph built 1 graph with a [None, None, 3] placeholder and ran all 5 lengths in it." in said
    assert "which traced 1 time to function's 5: retracing explains all of function's new-length cost" in said
    for traces in ({"function": 5, "function-signature": 2, "graph": 5}, {"function": 5}):
        said = " ".join(shapes_why.sentences(_report(times, traces)))
        assert "retracing" not in said and "traced 1 time to" not in said
    assert "graph built 5 graphs for 5 distinct lengths." in " ".join(
        shapes_why.sentences(_report(times, {"graph": 5})))


def test_retracing_share_within_the_workers_spread_is_a_range():
    # function-signature's steady state is 10 ms slower than function's: the 5 ms pass-1 gap could be that alone.
    times = {"function": (0.03, 0.01), "function-signature": (0.025, 0.02)}
    said = " ".join(shapes_why.sentences(_report(times, {"function": 5, "function-signature": 1})))
    assert "retracing explains -25% to 75% of function's new-length cost (judged against 10.0 ms" in said
    times["function-signature"] = (0.02, 0.015)
    said = " ".join(shapes_why.sentences(_report(times, {"function": 5, "function-signature": 1})))
    assert "retracing explains 50% of function's new-length cost (judged against 5.0 ms" in said


def test_throughput_within_the_spread_gets_no_percentage():
    function = (_cycle(0.03, 0), _cycle(0.010, 0))
    blocked = (_cycle(0.010, 2), _cycle(0.010, 1))   # the same calls in another order: no steady difference
    said = " ".join(shapes_why.sentences(_report({"function": function, "blocked": blocked})))
    assert "its throughput on lengths already seen showed no measurable difference by the same rule" in said
    assert "% lower" not in said and "% higher" not in said
