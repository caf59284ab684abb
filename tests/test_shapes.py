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
from tfgraphs.processes import from_argv
import tfgraphs
from tfgraphs.jobs import runner, shapes
from fakes import results
from tfgraphs.records.results import ShapesResults
from tfgraphs.records.results import load
from tfgraphs.records.results import ModeRun
from tfgraphs.records.judge import CANNOT_TELL, DIFFERS, DISTURBED, RANK_SUM, SAME, SIGNED_RANK, fewest, judge
from tfgraphs.spec.shapes import MODES, ONEDNN, SWITCHES_ON
from tfgraphs.spec.shapes import Config as ShapesConfig
from tfgraphs.spec.shapes import ShapesTask

ACROSS = "one median a worker, each mode's workers against the other's"
TINY = dict(start=40, count=5, batch=2, channels=3, filters=2, kernel=4, block=8, passes=3)


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
    from tfgraphs.worker.graphs import blocked_conv1d

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, kernel + extra, channels), dtype=np.float32)
    w = rng.standard_normal((kernel, channels, filters), dtype=np.float32)
    want = tf.nn.conv1d(x, w, stride=1, padding="VALID").numpy()
    got = blocked_conv1d(x, w, block, per_call).numpy()
    assert got.shape == want.shape == (n, extra + 1, filters)
    assert np.max(np.abs(got - want)) <= 1e-5 * max(np.max(np.abs(want)), 1e-30)


def test_blocked_convolution_sees_one_shape(tf, monkeypatch):
    from tfgraphs.worker.graphs import blocked_conv1d, conv_input_shape

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
    from tfgraphs.worker.graphs import blocked_conv1d
    with pytest.raises(ValueError, match="block_len"):
        blocked_conv1d(np.ones((1, 5, 1), np.float32), np.ones((2, 1, 1), np.float32), 0)


def test_exported_lazily():
    # A fresh interpreter imports the package without TensorFlow; the name, asked for here, is the worker's function.
    code = ("import sys, tfgraphs\n"
            "assert 'tensorflow' not in sys.modules and 'tfgraphs.worker.graphs' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    import tfgraphs
    from tfgraphs.worker import graphs

    assert tfgraphs.blocked_conv1d is graphs.blocked_conv1d


# real workers

def test_envelope_and_config(shapes_json):
    _, doc, _ = shapes_json
    assert doc["schema"] == 2 and doc["tool"] == "tfgraphs" and doc["command"] == "shapes"
    assert doc["tf_version"] and doc["python"] and doc["machine"]["cpu_count"] >= 1
    assert doc["config"] == {**TINY, "seed": 0, "dtype": "float32", "modes": list(MODES),
                             "switch_modes": ["eager"]}


def test_every_mode_timed_per_pass_and_length(shapes_json):
    _, doc, _ = shapes_json
    assert doc["order"] == "interleaved"
    assert [m["mode"] for m in doc["modes"]] == [*MODES, "eager"]
    lengths = range(TINY["start"], TINY["start"] + TINY["count"])
    for m in doc["modes"]:
        assert m["status"] == "ok" and m["error"] is None and m["device"].endswith("device:CPU:0")
        assert len(m["times_s"]) == 3 and all(len(p) == 5 and min(p) > 0 for p in m["times_s"])
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
    report = load(doc)
    said = words(" ".join(s for s in shapes_why.answer_and_findings(report)[1]
                          if getattr(s, "kind", "") == "shapes._remedy"))
    control = shapes_why.control_verdict(report, [r for r in report.rows if r.ok and r.env.get(ONEDNN) == "1"])
    if control.differs:   # a loaded machine: the control says so, and no mode is set against another
        assert "against every other mode: disturbed run: its control" in said and "function-signature" not in said
        return
    assert "blocked's throughput (blocks of 8) on lengths seen for the first time" in said
    traced = modes(doc)["function-signature"]["traces"]
    assert f"function-signature, which fixes only the input signature (it traced {traced} time" in said
    # Without function-signature's trace count, nothing is said of what the signature alone did.
    bare = load({**doc, "modes": [{**m, "traces": None} if m["mode"] == "function-signature" else m
                                  for m in doc["modes"]]})
    assert "function-signature, which fixes only" not in " ".join(shapes_why.answer_and_findings(bare)[1])


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
    # The findings are the report's, said from the record: the record keeps the rest.
    assert ShapesResults.from_dict(doc).to_dict() == {k: v for k, v in doc.items() if k != "findings"}
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
    assert doc == {"status": "failed", "error": "worker killed after the 0.2 s timeout", "worker_start": "fresh"}


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
    assert doc["modes"][1]["times_s"] == [] and ShapesResults.from_dict(doc).to_dict() == {
        k: v for k, v in doc.items() if k != "findings"}


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
    assert shapes.plan(ShapesConfig(**TINY)).workers == len(MODES) + 1
    assert shapes.plan(ShapesConfig(**{**TINY, "count": 3})).workers == len(MODES) + 1
    for bad, said in ((dict(kernel=41), "--kernel 41 is longer than the shortest length (--start 40)"),
                      (dict(modes=("eager",), switch_modes=("function",)), "--switch-modes function not in --modes")):
        with pytest.raises(UsageError, match="^" + re.escape(said)):
            shapes.plan(ShapesConfig(**{**TINY, **bad}))
    # A bound of one option is its declaration's, checked before any plan.
    with pytest.raises(UsageError, match="^--count 2 must be at least 3"):
        tfgraphs.shapes(**{**TINY, "count": 2})


def test_default_switch_mode_only_when_it_runs(monkeypatch, capsys):
    """--modes without eager runs no switch worker by default, rather than refusing the default."""
    fake = fakes.install(monkeypatch, lambda task, env: shapes_document(env, traces=5))
    assert main(["shapes", *map(str, _flags()), "--modes", "function", "--quiet"]) == 0
    assert [label for _, label, _ in fake.calls] == ["function"] and "oneDNN was not switched off in this run" in words(capsys.readouterr().out)


# sentences follow the numbers: the judge decides, length by length, guarded by blocked's passes

def test_passes_run_interleaved():
    """Pass 1 of a length, then pass 2 of the length before it: a change of load reaches both passes alike."""
    from tfgraphs.worker.shapes import schedule

    assert schedule(4, 2) == [(0, 0), (0, 1), (1, 0), (0, 2), (1, 1), (0, 3), (1, 2), (1, 3)]
    for count, passes in ((5, 1), (5, 3), (30, 2)):
        order = schedule(count, passes)
        assert sorted(order) == [(p, i) for p in range(passes) for i in range(count)]
        assert order[0] == (0, 0)   # the worker's start-up lands on the first length's pass 1, as before
        for i in range(count):      # each length meets its passes in order
            assert [p for p, j in order if j == i] == list(range(passes))
    # No pass runs as one block: with two passes, pass 1 and pass 2 alternate after the first call.
    assert [p for p, _ in schedule(30, 2)][1:-1] == [0, 1] * 29


def _jitter(base, k, count):
    """base within +-2%, in an order set by k: every length a little different."""
    return [base * (1 + 0.01 * ((i * k) % 5 - 2)) for i in range(count)]


def _spread(base, k, count):
    """base within +-0.6%, in an order set by k: every time of a pass different from the others."""
    return [base * (1 + 0.0004 * ((i * k) % 31 - 15)) for i in range(count)]


def _report(times, traces=None, off=None, start=TINY["start"], batch=TINY["batch"], first_traces=None, workers=1,
            slow=None):
    """A shapes report from {mode: (pass 1, pass 2, ...)}, each a time for every length or a list, {mode: traces},
    and off: the same for the modes run with the switch off; each mode in `workers` workers, every worker's times
    (and its control, the fixed NumPy sort) 0.2% apart from the last's, and slow={mode: factor} for workers whose
    every time and control is that much longer (a loaded worker)."""
    every = {**times, **(off or {})}.values()
    count = next((len(p[0]) for p in every if isinstance(p[0], list)), TINY["count"])
    config = ShapesConfig(**{**TINY, "count": count, "start": start, "batch": batch, "trials": workers,
                              "passes": max(len(p) for p in every)})

    def row(m, passes, env, j):
        factor = (1 + 0.002 * j) * (slow or {}).get(m, 1.0)
        timed = [[t * factor for t in (p if isinstance(p, list) else [p] * count)] for p in passes]
        return ModeRun.from_worker(m, {"status": "ok", "device": "/device:CPU:0", "max_rel_err": 1e-7,
                                       "times_s": timed, "traces": (traces or {}).get(m), "env": env,
                                       "control_s": [0.002 * factor * (1 + 0.001 * k) for k in range(5)],
                                       "trial": j + 1 if workers > 1 else None,
                                       "first_call_traces": (first_traces or {}).get(m)}, config.batch, config.lengths)
    rows = [row(m, passes, dict(SWITCHES_ON), j) for j in range(workers) for m, passes in times.items()]
    rows += [row(m, passes, {**SWITCHES_ON, ONEDNN: "0"}, j) for j in range(workers)
             for m, passes in (off or {}).items()]
    return results("shapes", config.to_dict(), tuple(rows), extra={"switch": ONEDNN})


def _said(report):
    return words(" ".join(shapes_why.answer_and_findings(report)[1]))


def _count10(blocked_pass_3, workers=1, slow=None):
    """The shape of the real `shapes --count 10` run, with a third pass: 10000 to 10009 at batch 10, so kHz = 100 /
    seconds. blocked_pass_3 makes blocked's pass 3 from its pass 2, the control's two sides.

    blocked at 330 kHz on pass 1, function at 155, eager at 167 (210 on later passes) with oneDNN on and 139 (125) off.
    """
    n = 10

    def started(times):   # the worker's first call carries its start-up
        return [1.5] + times[1:]
    blocked_2 = _jitter(100 / 340, 5, n)
    times = {"eager": (started(_jitter(100 / 167, 7, n)), _jitter(100 / 210, 3, n), _jitter(100 / 210, 5, n)),
             "function": (started(_jitter(100 / 155, 3, n)), _jitter(100 / 250, 7, n), _jitter(100 / 250, 5, n)),
             "blocked": (started(_jitter(100 / 330, 3, n)), blocked_2, blocked_pass_3(blocked_2))}
    off = {"eager": (started(_jitter(100 / 139, 3, n)), _jitter(100 / 125, 7, n), _jitter(100 / 125, 5, n))}
    return _report(times, {"function": n, "blocked": 1}, off, start=10000, batch=10, workers=workers, slow=slow)


def test_drifting_control_is_a_disturbed_run():
    """The real `shapes --count 10` case: blocked's pass 1 was faster than its pass 2 on 9 of 9 lengths (the machine's
    load rose); here its pass 2, the same fixed-shape work on lengths already seen, is faster than its pass 3. The old code printed "blocked ran at 330 kHz against 155 kHz for
    function (2.13x)" and "eager ran at 210 kHz with oneDNN on and 125 kHz with it off (1.68x)": its range rule only
    asked whether pass 1 was the slower, so a faster pass 1 passed unnoticed, and the ratios stood."""
    report = _count10(lambda second: [t * 1.08 * (1 + 0.002 * (i % 3)) for i, t in enumerate(second)])
    ok = [r for r in report.rows if r.env.get(ONEDNN) == "1"]
    control = shapes_why.control_verdict(report, ok)
    assert control.differs and control.smaller and (control.n_a, control.above) == (9, 0)
    found = shapes_why.answer_and_findings(report)[1]
    said = words(" ".join(found))
    assert ("Disturbed run: blocked (blocks of 8) does the same fixed-shape work in its pass 2 and pass 3, on lengths "
            "it has already seen, so they must not differ, yet pass 2 against pass 3, paired by length, differs "
            "(x0.92") in said
    assert "pass 2 the faster on 9 of 9 lengths" in said
    # No ratio between modes, and no throughput: every verdict but the control's own is "disturbed run", printed
    # as the control's numbers.
    assert "kHz" not in said and "2.13" not in said and "1.68" not in said and "higher than" not in said
    # The first call against pass 1 is a start-up cost many times a call, not a load drift: it is not guarded.
    told = [v for s in found if getattr(s, "kind", None) not in ("shapes._control", "shapes._first_call")
            for v in getattr(s, "verdicts", ())]
    assert told and all(v.outcome == DISTURBED and v.control == control for v in told)
    for s in found:
        if any(v.outcome == DISTURBED for v in getattr(s, "verdicts", ())):
            assert not re.search(r"x\d", words(s).replace(control.detail(), "")), s
    assert "blocked's throughput (blocks of 8) against every other mode: disturbed run: its control" in said
    text = words(shapes_render(report))
    assert "Disturbed run: blocked's pass 2 and pass 3, identical fixed-shape work, moved apart" in text
    assert "function CPU:0 10 1500 645 396 155" in text        # the times and throughputs, shown as data
    assert "function 253 - - - 9 disturbed run" in text
    assert "blocked 333 - - - 9 disturbed run" in text


def shapes_render(report):
    from tfgraphs.render.shapes import render
    return render(report, verbose=True)


def test_steady_control_gives_the_verdicts():
    """The same run with blocked's pass 3 as its pass 2 in another order, each mode in four workers: the control
    holds, and every verdict is given, against every other mode, one median a worker."""
    report = _count10(lambda second: _jitter(second[0], 7, len(second)), workers=4)
    said = _said(report)
    assert "Disturbed run" not in said and "disturbed run" not in said
    assert ("Control: blocked (blocks of 8) does the same fixed-shape work in its pass 2 and pass 3, on lengths it has "
            "already seen, so they must not differ; pass 2 against pass 3, paired by length: no difference beyond 25% "
            "(x") in said
    assert ("blocked's throughput (blocks of 8) on lengths seen for the first time (pass 1 against pass 1, "
            "one median a worker, each mode's workers against the other's): higher than every other mode (against eager: differs (x1.98") in said
    assert "against function: differs (x2.13, 95% CI x2.11 to x2.15; n=4 and 4" in said
    assert ("on lengths already seen (later passes against later passes, one median a worker, each mode's workers against the other's): "
            "higher than every other mode") in said
    assert ("eager's throughput with oneDNN on against off, one median a worker, the workers with it on against those with it off: on lengths seen for the first time "
            "(pass 1 against pass 1) differs (x1.20") in said
    assert "on lengths already seen (later passes against later passes) differs (x1.68" in said
    assert "Pass 1 against later passes in function, paired by length: differs (x1.6" in said
    assert "pass 1 the slower on 9 of 9 lengths, a median +247.2 ms over a 396.0 ms call" in said


def test_higher_only_against_every_other_mode():
    """A "higher" claim set against the slowest mode alone is not made: keras, faster on seen lengths, stops it."""
    report = _count10(lambda second: _jitter(second[0], 7, len(second)), workers=4)
    keras = _report({"keras": ([1.5] + _jitter(0.5, 3, 10)[1:], _jitter(0.25, 7, 10))}, start=10000, batch=10,
                    workers=4)
    report = results("shapes", report.config, (*report.rows, *keras.rows), extra=report.sections())
    said = _said(report)
    assert ("on lengths already seen (later passes against later passes, one median a worker, each mode's workers against the other's): higher "
            "than eager and function, lower than keras, so not higher than every other mode") in said
    assert "lengths seen for the first time (pass 1 against pass 1, one median a worker, each mode's workers against the other's): higher than every" in said


def test_no_difference_is_not_said_with_three_pairs():
    report = _report({"function": (_jitter(0.01, 3, 4), _jitter(0.01, 7, 4)),
                      "blocked": (_jitter(0.01, 7, 4), _jitter(0.01, 3, 4))})
    said = _said(report)
    assert "no difference" not in said and "differs" not in said
    assert "Pass 1 against pass 2 in function, paired by length: cannot tell with n=3 pairs (" in said
    assert "run with --count 7 or more" in " ".join(answer_of(report))


def answer_of(report):
    from tfgraphs.findings.shapes import answer_and_findings
    return [words(s) for s in answer_and_findings(report)[0]]


def test_differs_is_not_said_when_the_passes_overlap():
    # The same ten times in two orders: pass 1 as often faster as slower.
    report = _report({"function": (_jitter(0.01, 3, 11), _jitter(0.01, 7, 11)),
                      "blocked": (_jitter(0.01, 7, 11), _jitter(0.01, 3, 11))})
    said = _said(report)
    assert "differs" not in said
    assert "Pass 1 against pass 2 in function, paired by length: no difference beyond 25% (x1.00" in said
    assert any(s.startswith("No mode's pass 1 differed from pass 2, paired by length (function: no difference beyond "
                            "25%, n=10 pairs)") for s in answer_of(report))   # one mode judged


@pytest.mark.parametrize("a, b, outcome", [
    ([1.1] * 10, [1.0] * 10, DIFFERS),                                # steady
    # Always slower, by far less than the samples' own range: the old range rule said "no difference".
    ([x + 0.5 for x in range(1, 9)], list(range(1, 9)), DIFFERS),
    (_jitter(1.0, 3, 9), _jitter(1.0, 7, 9), SAME),                   # the same times in another order
    ([1.1] * 5, [1.0] * 5, CANNOT_TELL),                              # 5 pairs: the signed-rank test needs 6
])
def test_penalty_is_the_paired_judge(a, b, outcome):
    assert judge(a, b, paired=True).outcome == outcome


def test_steady_small_penalty_is_measured():
    """The seed-size case: pass 1 119 +- 1 ms against pass 2 106 +- 1 ms on every length is a penalty, not noise."""
    # Every time a little different (no ties): the rank tests' exact distributions, not a permutation test.
    function = _spread(0.119, 3, 31)
    function[0] = 2.0                                     # the worker's start-up, left out
    flat = (_spread(0.106, 3, 31), _spread(0.106, 7, 31))
    report = _report({"function": (function, _spread(0.106, 7, 31)), "function-signature": flat,
                      "blocked": tuple([t + 0.002 for t in p] for p in flat[::-1])},
                     {"function": 31, "function-signature": 1, "blocked": 1}, workers=4)
    c = shapes_why.run_cost(report, report.rows[0])
    assert c.first_s == 2.0 and len(c.new) == len(c.seen) == 30 and c.new_s == pytest.approx(0.119, rel=1e-3)
    assert c.penalty.differs and c.penalty.above == 30 and c.penalized
    assert not shapes_why.run_cost(report, report.rows[1]).penalized
    said = _said(report)
    assert ("Pass 1 against pass 2 in function, paired by length: differs (x1.12, 97.5% CI x1.1") in said
    assert "pass 1 the slower on 30 of 30 lengths, a median +13.0 ms over a 106.0 ms call" in said
    assert ("Pass 1, every length new, against pass 2, paired by length: function took a median +13.0 ms a call "
            "more, differs (x1.12, 97.5% CI x1.11 to x1.13; n=30 pairs, Holm p<0.001 over 2) (the largest effect of "
            "those that differ, 2 modes judged together).") in answer_of(report)
    assert "Pass 1 against pass 2 in function-signature, paired by length: no difference beyond 25% (x1.00" in said
    assert ("function-signature, which fixes only the input signature (it traced 1 time), beside blocked, which also "
            "fixes the block's shape: its pass 1 against pass 2, paired by length: no difference beyond 25%") in said
    assert ("the fixed signature alone removed what function paid per new length (function's cost against "
            "function-signature's: differs (+13.0 ms") in said
    assert ("The very first call in each of the 3 main workers took 105.4 ms to 2.00 s; against the same worker's "
            "median pass-1 call, "
            "paired by worker: cannot tell with n=3 pairs (") in said
    assert "a one-time start-up cost" not in said
    assert "What that first call traced was not recorded, so start-up is not told apart from tracing." in said


def test_the_first_calls_difference_is_start_up_only_where_every_pass_1_call_also_traced():
    flat = (_jitter(0.106, 3, 31), _jitter(0.106, 7, 31))
    report = _report({"function": flat, "function-signature": flat, "blocked": flat},
                     {"function": 31, "function-signature": 1, "blocked": 1},
                     first_traces={"function": 1, "function-signature": 1, "blocked": 1})
    said = _said(report)
    assert ("That first call traced or built a graph, by the count right after it: function 1 (of 31 for 31 lengths), "
            "function-signature 1 (of 1 for 31 lengths) and blocked 1 (of 1 for 31 lengths).") in said
    assert "function traced every new length, so its pass-1 calls traced too and its difference is not tracing." in said
    assert ("In function-signature and blocked the first call's trace is among its difference: start-up and tracing "
            "together.") in said
    assert "not recorded" not in said and "one-time start-up cost" not in said


def test_a_real_first_call_is_counted_as_tensorflow_counts_its_traces(shapes_json):
    found = modes(shapes_json[1])
    assert found["function"]["first_call_traces"] == 1 and found["function"]["traces"] == TINY["count"]
    assert found["function-signature"]["first_call_traces"] == found["function-signature"]["traces"] == 1
    assert found["graph"]["first_call_traces"] == 1


def test_retracing_sentence_follows_the_trace_counts():
    times = {"function": (_jitter(0.03, 3, 10), _jitter(0.01, 7, 10)),
             "function-signature": (_jitter(0.01, 7, 10), _jitter(0.01, 3, 10)), "graph": (0.01, 0.01)}
    said = _said(_report(times, {"function": 10, "function-signature": 1, "graph": 1}, workers=4))
    assert "blocked did not run 3 passes (--passes 3), so no control checked" in said
    assert "For 10 distinct lengths, tf.function traced function 10 times and function-signature 1 time." in said
    assert "graph built 1 graph with a [None, None, 3] placeholder and ran all 10 lengths in it." in said
    # The new-length costs (pass 1 minus pass 2, within each worker) are set against each other, so the two workers'
    # own speeds cancel, and the share said to be retracing cannot exceed function's whole cost.
    assert ("function traced 10 times to function-signature's 1; the cost of a new length (pass 1 minus pass 2, "
            f"length by length) in function against function-signature, {ACROSS}: differs (+20.0 ms, 95% CI "
            "+19.9 ms to +20.0 ms; n=4 and 4, p=0.029): that much of function's new-length cost is absent where the "
            "signature is fixed, and the trace counts say function retraced.") in said
    for traces in ({"function": 10, "function-signature": 2, "graph": 10}, {"function": 10}):
        said = _said(_report(times, traces))
        assert "retracing" not in said and "to function-signature's 1" not in said
    assert "graph built 10 graphs for 10 distinct lengths." in _said(_report(times, {"graph": 10}))


def test_retracing_is_not_said_when_the_fixed_signature_is_no_faster():
    # function-signature's pass 1 is as slow as function's: its single trace saved nothing measurable.
    times = {"function": (_jitter(0.03, 3, 10), _jitter(0.01, 7, 10)),
             "function-signature": (_jitter(0.03, 7, 10), _jitter(0.01, 3, 10))}
    said = _said(_report(times, {"function": 10, "function-signature": 1}, workers=4))
    assert "function retraced" not in said
    assert (f"{ACROSS}: cannot tell with n=4 and 4 (+0 us, 95% CI -119 us to +119 us; p=1): "
            "this run does not show function's new-length cost to be retracing.") in said


def test_switch_cost_is_not_said_when_it_is_the_same_on_and_off():
    times = {"eager": (_jitter(0.03, 3, 10), _jitter(0.01, 7, 10)),
             "blocked": (_jitter(0.01, 7, 10), _jitter(0.01, 3, 10))}
    said = _said(_report(times, off={"eager": (_jitter(0.03, 7, 10), _jitter(0.01, 3, 10))}))
    assert "oneDNN accounts for" not in said
    assert "The time a new length added to a call in eager with oneDNN on against off, one median a worker, the workers with it on against those with it off:" in said


# modes set against each other rest on several workers a mode, guarded by a control every worker runs

def _across(report):
    """The sentences that set one mode's workers against another's (or the switch on against off)."""
    return [words(s) for s in shapes_why.answer_and_findings(report)[1]
            if "one median a worker," in s and not s.startswith("Each mode ran in")]


def test_one_worker_a_mode_never_sets_modes_apart():
    """One worker a mode: blocked at twice function's throughput, eager 1.7x faster with oneDNN on, and still no
    "differs" across workers, a worker's own speed being one sample; the flag that adds workers is named."""
    report = _count10(lambda second: _jitter(second[0], 7, len(second)))
    across = _across(report)
    assert len(across) == 4
    for said in across:
        assert "differs" not in said and "higher than" not in said and "cannot tell with n=1 and 1" in said
        assert said.endswith("; run with --trials 4 or more to tell.")
    assert "against eager: differs (x1.98" not in _said(report)
    assert ("Each mode ran in 1 worker; every worker also timed a fixed NumPy sort, the same work in each, 5 times "
            "beside its calls: a median of 2.0 ms a worker.") in _said(report)


def test_a_slower_worker_is_seen_not_reported_as_an_effect():
    """Every blocked worker 1.3x slower, its control sort too: blocked against the other modes is a disturbed
    run, not a throughput; eager against itself with oneDNN off, on unloaded workers, is still judged."""
    report = _count10(lambda second: _jitter(second[0], 7, len(second)), workers=4, slow={"blocked": 1.3})
    blocked, added, switch = _across(report)[:2], _across(report)[2], _across(report)[3]
    for said in blocked:
        assert "higher than" not in said and "differs (" not in said
        assert said.count("disturbed run: its control, work that must not differ, moved (x1.30") == 2
    assert "differs (+202.2 ms" in added and "on lengths seen for the first time (pass 1 against pass 1) differs" in switch
    assert "Each mode ran in 4 workers" in _said(report) and "2.0 ms to 2.6 ms" in _said(report)


def test_every_worker_times_the_control(shapes_json):
    for m in shapes_json[1]["modes"]:
        assert len(m["control_s"]) == TINY["count"] + TINY["passes"] - 1 and min(m["control_s"]) > 0
        assert "trial" not in m


def test_the_hints_name_what_the_judge_needs(shapes_json):
    # count 5: four lengths after the first, fewer pairs than the paired test needs alone, so no mode's pass 1 can
    # differ and the answer asks for the count the judge's own test needs; one worker a mode, the workers' line the
    # judge's rank-sum count.
    said = words(shapes_json[2].stdout)
    # The modes are one family: each test is held to its Holm step, and needs the pairs that step needs.
    needs = re.search(rf"cannot tell with n={TINY['count'] - 1} pairs \(a rank test needs (\d+) pairs\)\): run with "
                      rf"--count (\d+) or more\.", said)
    assert "disturbed" in said or (needs and int(needs[2]) == int(needs[1]) + 1 > fewest(SIGNED_RANK))
    report = load(shapes_json[1])
    (workers,) = [str(s) for s in shapes_why.answer_and_findings(report)[1] if s.kind == "shapes._workers"]
    assert f"the judge cannot tell modes apart: run with --trials {fewest(RANK_SUM)} or more" in words(workers)


def test_trials_rotate_the_modes_and_the_switch(monkeypatch, tmp_path):
    fake = fakes.install(monkeypatch, lambda task, env: shapes_document(env, traces=5))
    path = tmp_path / "out.json"
    assert shapes.plan(ShapesConfig(**{**TINY, "modes": ("eager", "function"), "trials": 2})).workers == 6
    assert main(["shapes", *map(str, _flags()), "--modes", "eager,function", "--trials", "2", "--json", str(path),
                 "--quiet"]) == 0
    assert [label for _, label, _ in fake.calls] == [
        "eager trial 1/2", "function trial 1/2", "eager trial 1/2 [TF_ENABLE_ONEDNN_OPTS=0]",
        "function trial 2/2", "eager trial 2/2 [TF_ENABLE_ONEDNN_OPTS=0]", "eager trial 2/2"]
    doc = json.loads(path.read_text())
    assert [(m["mode"], m["trial"], m["env"][ONEDNN]) for m in doc["modes"]] == [
        ("eager", 1, "1"), ("function", 1, "1"), ("eager", 1, "0"), ("function", 2, "1"), ("eager", 2, "0"),
        ("eager", 2, "1")]
    assert ShapesResults.from_dict(doc).to_dict() == {k: v for k, v in doc.items() if k != "findings"}
