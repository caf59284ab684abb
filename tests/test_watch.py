"""tfgraphs watch on real scripts: seed 002's three approaches as written, one script per finding kind, a clean one,
and the bad inputs. Each watched script is a process of its own (it imports TensorFlow), as the command runs it; a
bad input is refused from a fresh interpreter once, and by tfgraphs.cli.main in this process."""

import json
from dataclasses import replace
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from conftest import interruptible, run_cli, run_main, words
from tfgraphs.findings.watch import diagnosis_sentence as sentence_of
from tfgraphs.records.judge import Verdict
from tfgraphs.records.one_record import Watching, diagnoses
import tfgraphs

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).resolve().parent / "watch_scripts"
LESSON = ROOT / "docs" / "watch.md"
BATCH = 600   # the seed's 60000 made smaller, as the lesson's 6000 is; nothing else in the scripts changes


def line_of(path, text):
    """The 1-based number of the first line of path holding text."""
    return next(i for i, line in enumerate(Path(path).read_text().splitlines(), 1) if text in line)


def watched(tmp_path, script, *args, flags=("--tf1",)):
    """(process, the JSON document) of `tfgraphs watch FLAGS --json --quiet SCRIPT ARGS`."""
    out = tmp_path / f"{Path(script).stem}.json"
    proc = run_cli("watch", *flags, "--quiet", "--json", out, script, *args)
    return proc, json.loads(out.read_text()) if out.exists() else None


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    """Seed 002's approaches 1-3, written by the lesson's own block with the batch made smaller, each watched."""
    folder = tmp_path_factory.mktemp("seeds")
    block = re.search(r"```python\n(.*?)```", LESSON.read_text(), re.S).group(1)
    assert block.count("BATCH = 6000\n") == 1
    subprocess.run([sys.executable, "-c", block.replace("BATCH = 6000\n", f"BATCH = {BATCH}\n")], cwd=folder,
                   check=True)
    return {n: (folder / f"approach{n}.py", *watched(folder, folder / f"approach{n}.py")) for n in (1, 2, 3)}


@pytest.mark.parametrize("n, embeds", [(1, "C = tf.nn.conv2d(X, W"), (2, "X = tf.constant(np.random")])
def test_approaches_1_and_2_name_the_line_that_embeds_x_and_the_run_after_it(seeds, n, embeds):
    script, proc, doc = seeds[n]
    assert proc.returncode == 0, proc.stderr
    x_bytes = BATCH * 32 * 32 * 1 * np.dtype("float64").itemsize
    [found] = [d for d in doc["findings"] if d["kind"] == "embedded-constant"]
    assert (found["file"], found["line"]) == (str(script), line_of(script, embeds))
    assert found["evidence"]["tensor_bytes"] == x_bytes and x_bytes <= found["evidence"]["bytes"] < x_bytes + 200
    run_line = line_of(script, "sess.run(A")
    assert found["evidence"]["next_call"]["line"] == run_line and found["evidence"]["next_call"]["n"] == 1
    said = words(proc.stdout)
    assert f"{script.name}:{found['line']} embedded" in said
    assert f"the first run that came after it, {script.name}:{run_line}, took" in said


def test_approach_3_gets_no_embedded_constant(seeds):
    script, proc, doc = seeds[3]
    assert proc.returncode == 0, proc.stderr
    assert doc["findings"] == [] and doc["consts"] == []
    assert doc["calls"][0]["feed_bytes_per_call"] >= BATCH * 32 * 32 * 8
    assert "No finding:" in words(proc.stdout)


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    """The scripts that each show a finding kind, and the clean one, watched with --min-bytes 100KiB."""
    folder = tmp_path_factory.mktemp("kinds")
    return {name: watched(folder, SCRIPTS / f"{name}.py", "a", "b", flags=("--tf1", "--min-bytes", "100KiB"))
            for name in ("growth_and_feed", "signatures_and_traces", "clean", "method_function")}


def test_graph_growth_and_repeated_feed_name_their_lines(kinds):
    proc, doc = kinds["growth_and_feed"]
    script = SCRIPTS / "growth_and_feed.py"
    assert proc.returncode == 0 and proc.stdout.startswith("done\n")
    found = {d["kind"]: d for d in doc["findings"]}
    assert set(found) == {"graph-growth", "repeated-feed"}
    growth = found["graph-growth"]
    assert growth["line"] == line_of(script, "scaled = tf.reduce_sum") and growth["evidence"]["runs"] == 4
    assert growth["evidence"]["op_types"]["Sum"] == 4 and growth["evidence"]["ops"] == 16
    feed = found["repeated-feed"]["evidence"]
    assert found["repeated-feed"]["line"] == line_of(script, "sess.run(total")
    assert (feed["bytes"], feed["calls"], feed["same_calls"]) == (np.ones([40, 32, 32, 1]).nbytes, 4, 4)


def test_new_signatures_and_retracing_name_their_lines(kinds):
    proc, doc = kinds["signatures_and_traces"]
    script = SCRIPTS / "signatures_and_traces.py"
    assert proc.returncode == 0, proc.stderr
    found = {d["kind"]: d for d in doc["findings"]}
    assert set(found) == {"new-signature", "retracing"}
    assert found["new-signature"]["line"] == line_of(script, "sess.run(fetched")
    assert found["new-signature"]["evidence"]["signatures"] == 5
    assert found["retracing"]["evidence"] == {"name": "doubled", "traces": 3, "cost_s": None, "share": None}


def test_a_method_s_traces_are_counted_over_its_instance_copies(kinds):
    proc, doc = kinds["method_function"]
    assert proc.returncode == 0, proc.stderr
    [found] = doc["findings"]
    assert found["kind"] == "retracing" and found["evidence"] == {"name": "__call__", "traces": 3, "cost_s": None,
                                                                  "share": None}
    # The decorator's line (Python 3.11 and later) or the def's (Python 3.10): where the frame that made it stood.
    script = SCRIPTS / "method_function.py"
    assert found["line"] in (line_of(script, "@tf.function"), line_of(script, "def __call__"))


def test_a_clean_script_gets_no_finding_and_runs_as_python_would(kinds):
    proc, doc = kinds["clean"]
    assert proc.returncode == 0 and proc.stdout.startswith("args ['a', 'b'] __main__\n")
    assert doc["findings"] == [] and doc["exit_code"] == 0 and doc["ended"] == "exit"
    assert [c["n"] for c in doc["calls"]] == [3] and doc["feeds"][0]["same_calls"] == 1
    assert "No finding:" in words(proc.stdout)


def test_the_saved_document_renders_again_and_as_csv(kinds, tmp_path, capfd):
    proc, doc = kinds["growth_and_feed"]
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(doc))
    again = run_main(capfd, "report", path)
    assert again.returncode == 0 and "growth_and_feed.py:12 made 16 ops" in words(again.stdout)
    import tfgraphs
    report = tfgraphs.report(path)
    report.to_csv(tmp_path / "runs.csv")
    lines = (tmp_path / "runs.csv").read_text().splitlines()
    assert lines[0] == "command,file,line,kind,signatures,run,seconds" and len(lines) == 1 + 4


def record(**given):
    """A Watching with one call site, as a worker would describe it: four new sets, five repeats."""
    call = {"file": "s.py", "line": 5, "kind": "run", "n": 10, "signatures": 5, "first_s": 0.9,
            "later_median_s": 0.01, "feed_bytes_per_call": 0,
            "times_s": [0.9, 0.01, 0.012, 0.5, 0.011, 0.4, 0.013, 0.45, 0.01, 0.6],
            "signature_first_s": [0.9, 0.5, 0.4, 0.45, 0.6], "first_run_index": 0}
    return Watching(script="s.py", runs=10, calls=(call,), **given)


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    """The scripts with a session, a builder or a Saver, summary, Dataset and initializer made on each pass, and a
    graph of its own per pass, watched."""
    folder = tmp_path_factory.mktemp("loops")
    return {name: watched(folder, SCRIPTS / f"{name}.py", str(folder))
            for name in ("session_per_pass", "builder_in_module", "made_in_loop", "graph_per_pass")}


def test_a_session_made_on_each_pass_is_found_at_its_line_with_its_cost(loops):
    proc, doc = loops["session_per_pass"]
    script = SCRIPTS / "session_per_pass.py"
    assert proc.returncode == 0 and proc.stdout.startswith("done\n")
    [found] = doc["findings"]
    e = found["evidence"]
    assert (found["kind"], found["line"]) == ("session-per-pass", line_of(script, "with tf.Session() as sess"))
    assert (e["made"], len(e["first_s"]), e["repeats"]) == (6, 6, 12)
    assert e["cost_s"] > 0 and e["share"] == pytest.approx(e["cost_s"] / doc["script_s"])
    assert Verdict.from_dict(e["verdict"]).n_a == 6
    [call] = doc["calls"]
    assert (call["sessions"], len(call["session_first_s"]), call["n"]) == (6, 6, 18)
    said = words(proc.stdout)
    assert f"session_per_pass.py:{found['line']} made a new session 6 times, each on the same graph" in said
    assert f"session_per_pass.py:{call['line']}: ran in 6 sessions, each paying a first run here" in said


def test_a_graph_of_its_own_per_pass_is_no_session_made_again(loops):
    proc, doc = loops["graph_per_pass"]
    assert proc.returncode == 0, proc.stderr
    assert doc["findings"] == [] and [s["made"] for s in doc["sessions"]] == [3]
    assert doc["sessions"][0]["graphs"] == 3


def test_a_builder_in_another_module_is_blamed_on_the_loop_line_that_calls_it(loops):
    proc, doc = loops["builder_in_module"]
    script, builder = SCRIPTS / "builder_in_module.py", SCRIPTS / "mymodel.py"
    assert proc.returncode == 0, proc.stderr
    [found] = [d for d in doc["findings"] if d["kind"] == "graph-growth"]
    loop, made = line_of(script, "out = build(x)"), line_of(builder, "return tf.reduce_sum")
    assert (found["file"], found["line"]) == (str(script), loop)
    assert found["evidence"]["builder"] == {"file": str(builder), "line": made}
    assert found["evidence"]["via"] == [{"file": str(builder), "line": made}, {"file": str(script), "line": loop}]
    assert found["evidence"]["after_site"] == {"file": str(script), "line": line_of(script, "sess.run(out")}
    assert f"builder_in_module.py:{loop}, in the loop, called {builder}:{made}, which made" in words(proc.stdout)


def test_ops_made_at_the_loop_line_itself_name_no_other_line(kinds):
    proc, doc = kinds["growth_and_feed"]
    [growth] = [d for d in doc["findings"] if d["kind"] == "graph-growth"]
    here = {"file": growth["file"], "line": growth["line"]}
    assert growth["evidence"]["builder"] == here and growth["evidence"]["via"] == [here]
    assert "in the loop, called" not in words(proc.stdout)


def test_each_finding_carries_what_it_cost(kinds, loops):
    for proc, doc in (kinds["growth_and_feed"], loops["made_in_loop"]):
        costs = [d["evidence"]["cost_s"] for d in doc["findings"]]
        assert len(costs) >= 2 and all(c is not None and c >= 0 for c in costs)
    feed = next(d for d in kinds["growth_and_feed"][1]["findings"] if d["kind"] == "repeated-feed")["evidence"]
    # The feed's cost is the time handing it over took, as timed; not its bytes.
    assert feed["cost_s"] == feed["convert_s"]
    assert "as timed here" in words(kinds["growth_and_feed"][0].stdout)


def test_a_saver_a_summary_a_dataset_and_an_initializer_made_in_the_loop_are_named(loops):
    proc, doc = loops["made_in_loop"]
    script = SCRIPTS / "made_in_loop.py"
    assert proc.returncode == 0, proc.stderr
    causes = {d["line"]: d["evidence"]["causes"] for d in doc["findings"] if d["kind"] == "graph-growth"}
    assert {line: set(c) for line, c in causes.items()} == {
        line_of(script, "tf.global_variables_initializer()"): {"initializer"},
        line_of(script, "Dataset.from_tensor_slices"): {"dataset"},
        line_of(script, "make_one_shot_iterator"): {"dataset"},
        line_of(script, "tf.summary.scalar"): {"summary"},
        line_of(script, "tf.train.Saver()"): {"saver"}}
    saver = next(d for d in doc["findings"] if d["line"] == line_of(script, "tf.train.Saver()"))
    assert saver["remedy"].startswith("make the Saver once, before the loop")
    assert {"SaveV2", "RestoreV2"} <= set(saver["evidence"]["op_types"])
    said = words(sentence_of(Watching.from_dict(doc), saver))
    assert "a tf.compat.v1.train.Saver's save and restore ops" in said
    # Every op type is named, or the first six and how many more.
    assert len(saver["evidence"]["op_types"]) > 6 and "and 1 more type" in said


def test_generic_growth_names_no_specific_cause(kinds):
    [growth] = [d for d in kinds["growth_and_feed"][1]["findings"] if d["kind"] == "graph-growth"]
    assert growth["evidence"]["causes"] == {} and growth["remedy"].startswith("create the ops once, before the loop")


def test_with_output_the_scripts_stdout_is_pythons_byte_for_byte(tmp_path):
    script = SCRIPTS / "prints.py"
    # What `python prints.py` writes on stdout: each n with the sum of n ones doubled, then "done".
    plain = b"".join(f"{n} {float(np.sum(np.ones(n) * 2))}\n".encode() for n in range(1, 4)) + b"done\n"
    report = tmp_path / "r.txt"
    proc = subprocess.run([sys.executable, "-m", "tfgraphs", "watch", "--output", str(report), str(script)],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0
    assert proc.stdout == plain
    assert b"running under watch" not in proc.stderr and b"to stderr" in proc.stderr
    assert report.read_text().startswith(f"tfgraphs watch {script}\n")
    assert "was traced 3 times" in words(report.read_text())


def test_the_new_signature_finding_is_the_judges_verdict_on_new_first_calls_against_repeats():
    [found] = diagnoses(record())
    verdict = found["evidence"]["verdict"]
    assert found["kind"] == "new-signature" and verdict["outcome"] == "differs"
    assert (verdict["n_a"], verdict["n_b"], verdict["method"]) == (4, 5, "Mann-Whitney U")
    assert "differs (x" in sentence_of(record(), found) and "n=4 and 5" in sentence_of(record(), found)
    # Three new sets against their repeats cannot be told apart by a rank test, however far above them they are.
    few = record().calls[0] | {"times_s": [0.9, 0.01, 0.012, 0.5, 0.011, 0.4, 0.013, 0.45], "n": 8, "signatures": 4,
                               "signature_first_s": [0.9, 0.5, 0.4, 0.45]}
    assert diagnoses(Watching(script="s.py", calls=(few,))) == ()
    fast = record().calls[0] | {"times_s": [0.9, 0.6, 0.5, 0.5, 0.6, 0.4, 0.45, 0.45, 0.55, 0.6]}
    assert diagnoses(Watching(script="s.py", calls=(fast,))) == ()


def test_a_new_signature_under_one_percent_of_the_run_stays_out_of_the_answer():
    from tfgraphs.findings.watch import answer_and_findings

    # The new sets' first calls cost 1.906 s beyond a repeat (0.011 s): 0.48% of a 400 s script, 19% of a 10 s one.
    small = replace(record(), script_s=400.0, exit_code=0, ended="exit", touched_tensorflow=True)
    small = replace(small, findings=diagnoses(small))
    [found] = small.findings
    assert found["evidence"]["cost_s"] == pytest.approx(1.906)
    assert found["evidence"]["share"] == pytest.approx(1.906 / 400)
    said = words(" ".join(answer_and_findings(small)[0]))
    assert "different sets of fed and fetched names" not in said
    assert "1 smaller finding (new-signature), each under 1% of the script's run time: see below." in said
    assert "No finding" not in said
    assert ("; together 1.91 s beyond a repeat, 0.477% of the script's 400.00 s run, under 1% of it."
            in words(sentence_of(small, found)))
    large = replace(small, script_s=10.0)
    large = replace(large, findings=diagnoses(large))
    said = words(" ".join(answer_and_findings(large)[0]))
    assert "ran 5 different sets of fed and fetched names" in said and "smaller finding" not in said


def costed(tmp_path, script_s, convert_s, after_s):
    """The saved watch document of growth_and_feed.py (tests/fixtures/watch.json) with the fields its costs come
    from set: the script's run time, the feed's hand-over time and the runs right after the new ops."""
    doc = json.loads((ROOT / "tests" / "fixtures" / "watch.json").read_text())
    [feed], [growth], [call] = doc["feeds"], doc["growth"], doc["calls"]
    feed["convert_s"], doc["script_s"] = convert_s, script_s
    growth.update(after_s=after_s, after_site={"file": call["file"], "line": call["line"]})
    path = tmp_path / "costed.json"
    path.write_text(json.dumps(doc))
    return tfgraphs.report(path)


def printed_order(text, findings):
    """The diagnoses' places in the page's answer and in its findings, by where each sentence starts."""
    said = words(text)
    answer, below = said.split("What this run shows:")
    heads = [f"growth_and_feed.py:{d['line']} {'fed' if d['kind'] == 'repeated-feed' else 'made'}" for d in findings]
    return [answer.index(h) for h in heads], [below.index(f"- {h}") for h in heads]


@pytest.mark.parametrize("convert_s, after_s, kinds_ranked, small", [
    (0.4, [0.003] * 4, ["repeated-feed", "graph-growth"], "together 12.0 ms, 0.600%"),
    (1e-4, [0.3] * 4, ["graph-growth", "repeated-feed"], "together 0.1 ms, 0.00500%")],
    ids=["feed-costlier", "growth-costlier"])
def test_findings_are_ranked_by_their_cost_in_the_json_and_on_the_page(tmp_path, convert_s, after_s, kinds_ranked,
                                                                       small):
    report = costed(tmp_path, 2.0, convert_s, after_s)
    found = report.to_dict()["findings"]
    assert [d["kind"] for d in found] == kinds_ranked
    costs = [d["evidence"]["cost_s"] for d in found]
    assert costs == sorted(costs, reverse=True) and costs[0] >= 0.4
    assert [d["evidence"]["share"] for d in found] == [c / 2.0 for c in costs]
    in_answer, in_findings = printed_order(report.text(), found)
    assert in_answer == sorted(in_answer) and in_findings == sorted(in_findings)
    # The one under 1% of the run says so; the other does not.
    first, last = (words(sentence_of(report.result, d)) for d in found)
    assert "under 1% of it" in last and "under 1%" not in first
    assert f"; {small} of the script's 2.00 s run, under 1% of it" in last


def test_findings_whose_cost_was_not_measured_come_last():
    timed = record(script_s=10.0)
    untimed = ({"file": "s.py", "line": 2, "name": "doubled", "traces": 3},)
    const = {"file": "s.py", "line": 1, "name": "X", "bytes": 8250, "tensor_bytes": 8192, "dtype": "float64",
             "shape": [1024], "runs_before": 99}   # no run came after it
    found = diagnoses(replace(timed, functions=untimed, consts=(const,), min_bytes=100))
    assert [d["kind"] for d in found] == ["new-signature", "embedded-constant", "retracing"]
    assert [d["evidence"]["cost_s"] is None for d in found] == [False, True, True]
    said = words(sentence_of(timed, found[2]))
    assert said.endswith("traced 3 times (TensorFlow's experimental_get_tracing_count); the time its tracing took is "
                         "not measured here. Remedy: " + found[2]["remedy"] + ". Taught in " + found[2]["lesson"] + ".")


def test_a_real_run_s_findings_are_printed_and_saved_in_the_order_of_their_cost(kinds, loops):
    for proc, doc in (kinds["growth_and_feed"], loops["made_in_loop"]):
        costs = [d["evidence"]["cost_s"] for d in doc["findings"]]
        assert len(costs) >= 2 and costs == sorted(costs, reverse=True)
        below = words(proc.stdout).split("What this run shows:")[1]
        places = [below.index(f"- {Path(d['file']).name}:{d['line']} ") for d in doc["findings"]]
        assert places == sorted(places)
    # Three lines whose ops came before the same runs each carry those runs' cost, and say they share it.
    proc, doc = loops["made_in_loop"]
    shared = [d for d in doc["findings"] if "the same runs came right after the ops of" in
              words(sentence_of(Watching.from_dict(doc), d))]
    assert len(shared) == 3 and len({d["evidence"]["cost_s"] for d in shared}) == 1


def test_a_list_fed_again_is_said_to_be_converted_on_each_call():
    fed = {"file": "s.py", "line": 5, "feed": "x:0", "bytes": 16384000, "calls": 6, "same_calls": 6, "how": "same",
           "converted_from": "list"}
    w = Watching(script="s.py", feeds=(fed,))
    [found] = diagnoses(w)
    said = words(sentence_of(w, found))
    assert said.startswith("s.py:5 fed the same list, which session.py converted to a 16,384,000-byte array on each "
                           "call (np.asarray once, before the calls, would leave only the feed), to placeholder x:0 on "
                           "all 6 calls (same)")
    plain = {k: v for k, v in fed.items() if k != "converted_from"}
    w = Watching(script="s.py", feeds=(plain,))
    assert "fed the same 16,384,000-byte array to placeholder" in sentence_of(w, diagnoses(w)[0])


def test_a_call_site_whose_every_call_was_a_new_set_has_no_repeats_to_call_later_runs():
    from tfgraphs.findings.watch import answer_and_findings

    call = record().calls[0] | {"signatures": 10, "signature_first_s": record().calls[0]["times_s"]}
    said = words(" ".join(answer_and_findings(Watching(script="s.py", calls=(call,)))[1]))
    assert ("; each of its 10 calls used a new set of fed and fetched names, so each was the first call of its set, "
            "none a repeat.") in said
    said = words(" ".join(answer_and_findings(record())[1]))
    assert "over 5 sets of fed and fetched names, the new sets' first calls among them." in said
    one = record().calls[0] | {"signatures": 1, "signature_first_s": [0.9]}
    assert "sets of fed" not in " ".join(answer_and_findings(Watching(script="s.py", calls=(one,)))[1])


def test_a_const_that_is_mostly_its_name_gets_no_remedy_for_data():
    scalar = {"file": "s.py", "line": 7, "name": "gradients/Sum_grad/Reshape/shape", "bytes": 116, "tensor_bytes": 4,
              "dtype": "int32", "shape": [], "runs_before": 0}
    data = scalar | {"name": "X", "bytes": 8250, "tensor_bytes": 8192, "shape": [1024]}
    # tf.zeros([2, 10]) stores one value, broadcast: 6 bytes of data in a 113-byte NodeDef, though its tensor has 80.
    zeros = scalar | {"name": "Variable/Adam/Initializer/zeros", "bytes": 113, "tensor_bytes": 80, "data_bytes": 6,
                      "dtype": "float32", "shape": [2, 10]}
    found = diagnoses(Watching(script="s.py", min_bytes=100, consts=(scalar, data, zeros)))
    assert [(d["kind"], d["evidence"]["name"]) for d in found] == [("embedded-constant", "X")]


def test_consts_before_one_first_run_each_say_they_share_its_cost():
    call = record().calls[0]
    consts = tuple({"file": "s.py", "line": 3, "name": name, "bytes": 8250, "tensor_bytes": 8192,
                    "data_bytes": 8192, "dtype": "float64", "shape": [1024], "runs_before": 0} for name in "XY")
    w = replace(record(), consts=consts, script_s=2.0)
    [x, y] = [d for d in diagnoses(w) if d["kind"] == "embedded-constant"]
    w = replace(w, findings=diagnoses(w))
    assert x["evidence"]["cost_s"] == y["evidence"]["cost_s"] == pytest.approx(call["first_s"] - 0.01)
    for d in (x, y):
        assert ("; that first run came after 1 other embedded Const too: one cost, said with each."
                in words(sentence_of(w, d)))
    alone = replace(w, consts=consts[:1])
    alone = replace(alone, findings=diagnoses(alone))
    [x] = [d for d in alone.findings if d["kind"] == "embedded-constant"]
    assert "that first run came after" not in sentence_of(alone, x)


def test_growth_on_one_run_and_a_feed_that_changes_are_not_findings():
    once = {"file": "s.py", "line": 9, "ops": 3, "runs": 1, "op_types": {"Sum": 3}}
    changed = {"file": "s.py", "line": 5, "feed": "x:0", "bytes": 10**7, "calls": 3, "same_calls": 1, "how": "-"}
    single = changed | {"calls": 1, "same_calls": 1}
    assert diagnoses(Watching(script="s.py", growth=(once,), feeds=(changed, single))) == ()


def test_bad_input_gets_one_line_and_exit_2(tmp_path, capfd):
    for args, said in ((["watch", tmp_path / "missing.py"], "missing.py does not exist"),
                       (["watch", tmp_path], "is a folder"),
                       (["watch", "--min-bytes", "2 XB", SCRIPTS / "clean.py"], "--min-bytes '2 XB' is not a size"),
                       (["watch", "--min-bytes", "0", SCRIPTS / "clean.py"], "must be at least 1")):
        proc = run_cli(*args) if "missing.py" in said else run_main(capfd, *args)
        assert (proc.returncode, proc.stdout) == (2, "") and len(proc.stderr.splitlines()) == 1, proc.stderr
        assert said in proc.stderr


def test_an_error_inside_session_run_has_the_traceback_python_gives(tmp_path):
    script = SCRIPTS / "raises_in_run.py"
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    # Both at once: each imports TensorFlow.
    both = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for argv in ([sys.executable, str(script)],
                         [sys.executable, "-m", "tfgraphs", "watch", "--quiet", "--json", str(tmp_path / "w.json"),
                          str(script)])]
    plain, watched_proc = [subprocess.CompletedProcess(p.args, None, *p.communicate(timeout=120)) for p in both]
    plain.returncode, watched_proc.returncode = (p.returncode for p in both)
    assert plain.returncode == watched_proc.returncode == 1

    def traceback_of(err):
        return err[err.index("Traceback (most recent call last)"):]
    # Every frame python printed, and none of the watch's own hooks around Session.run.
    assert traceback_of(watched_proc.stderr) == traceback_of(plain.stderr)
    assert "Cannot feed value of shape (3,)" in watched_proc.stderr
    # No frame is a file of the package, wherever it and the virtualenv are installed.
    package = os.path.dirname(os.path.realpath(tfgraphs.__file__)) + os.sep
    frames = re.findall(r'^  File "([^"]+)", line \d+', traceback_of(watched_proc.stderr), re.M)
    assert frames and not [f for f in frames if os.path.realpath(f).startswith(package)], frames
    # Then the report, with how the script ended.
    assert json.loads((tmp_path / "w.json").read_text())["ended"] == "raised"
    assert "raises_in_run.py raised (exit status 1): 1 Session.run call from 1 line." in words(watched_proc.stdout)


def test_a_script_without_tensorflow_is_told_so_and_keeps_its_status(tmp_path):
    proc, doc = watched(tmp_path, SCRIPTS / "no_tensorflow.py", flags=())
    assert proc.returncode == 3 and proc.stdout.startswith("no TensorFlow here\n")
    said = words(proc.stdout)
    assert doc["touched_tensorflow"] is False and "It never used TensorFlow's graph mode" in said
    assert "no_tensorflow.py exited with status 3" in said


def test_a_graph_built_and_never_run_is_said_as_seen_in_the_users_environment(tmp_path, own_servers):
    """Started fresh, as the product starts it: what TensorFlow's own import sets in the environment, it sets here."""
    env = {k: v for k, v in os.environ.items() if k != "TF_CPP_MIN_LOG_LEVEL"}
    proc = subprocess.run([sys.executable, "-m", "tfgraphs", "watch", "--tf1", "--quiet", "--json",
                           str(tmp_path / "w.json"), str(SCRIPTS / "never_runs.py")], capture_output=True, text=True,
                          env=env, timeout=120)
    doc = json.loads((tmp_path / "w.json").read_text())
    assert proc.returncode == 0 and doc["runs"] == 0 and doc["graph_ops"] >= 5, proc.stderr
    # The script's environment is the user's: watch adds no TF_CPP_MIN_LOG_LEVEL of its own, and what TensorFlow's
    # own import sets there (2.12 imports jax, which sets 1) it sets under python too.
    python = subprocess.run([sys.executable, "-c", "import os, tensorflow; "
                             "print(repr(os.environ.get('TF_CPP_MIN_LOG_LEVEL')))"], capture_output=True, text=True,
                            env=env, timeout=120)
    assert proc.stdout.splitlines()[0] == python.stdout.strip()
    said = words(proc.stdout)
    assert (f"It built a graph of {doc['graph_ops']:,} ops and ran no session and no tf.function: nothing ran, so "
            f"there were no runs to time.") in said
    assert "never used TensorFlow's graph mode" not in said and "nothing to watch" not in said


@pytest.mark.parametrize("whole_group", [True, False], ids=["ctrl-c", "sigint-to-tfgraphs"])
def test_ctrl_c_reports_what_was_seen_then_exits_130(tmp_path, whole_group, own_servers):
    out = tmp_path / "seen.json"
    proc = subprocess.Popen([sys.executable, "-m", "tfgraphs", "watch", "--tf1", "--quiet", "--json", str(out),
                             str(SCRIPTS / "waits.py")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=interruptible)
    assert proc.stdout.readline() == "ready\n"
    children = psutil.Process(proc.pid).children(recursive=True)
    if whole_group:   # a terminal's Ctrl-C reaches every process of the foreground group
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "waits.py was interrupted (exit status 130)" in words(rest)
    # Python's own report of the interrupt, in the script: it was sleeping after its one run.
    shown = err[err.rindex("Traceback (most recent call last):"):].splitlines()
    assert shown[1].startswith(f'  File "{SCRIPTS / "waits.py"}", line ') and shown[-1] == "KeyboardInterrupt"
    doc = json.loads(out.read_text())
    assert (doc["status"], doc["exit_code"], doc["ended"], doc["runs"]) == ("ok", 130, "interrupted", 1)
    run_line = (SCRIPTS / "waits.py").read_text().splitlines().index("    sess.run(x)") + 1
    assert [(c["line"], c["kind"], c["n"]) for c in doc["calls"]] == [(run_line, "run", 1)]
    time.sleep(0.2)
    assert children and not [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_watching_in_a_notebook_reports_its_cells(tmp_path):
    import tfgraphs
    from tfgraphs.tfimport import import_tensorflow

    tf = import_tensorflow()
    with tf.Graph().as_default(), tfgraphs.watching(min_bytes=1000) as w:
        big = tf.constant(np.ones([50, 8], np.float64))   # 3,200 bytes
        with tf.compat.v1.Session() as sess:
            sess.run(big)
    report = w.report()
    assert [d["kind"] for d in report.result.findings] == ["embedded-constant"]
    assert report.result.findings[0]["line"] == line_of(__file__, "big = tf.constant(np.ones")
    assert "embedded" in report.text() and "<p class=\"tfgraphs-answer\">" in report._repr_html_()
