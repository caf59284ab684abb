"""Every lab check fails plausible wrong solutions and passes right ones written differently (run in-process)."""

import functools
import io
import statistics
from pathlib import Path

import pytest

from tfgraphs.errors import UsageError
from tfgraphs.labs import observed, rerun, under_watch
from tfgraphs.labs.checking import checks_of, load, run_check
from tfgraphs.labs.verdicts import SEEN_CHARS, print_outcomes

TESTS = Path(__file__).resolve().parent
VARIANTS = TESTS / "lab_variants"
ROOT = TESTS.parent


@pytest.fixture(autouse=True)
def variants_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(VARIANTS))


def module(lab, name):
    if name == "reference":
        return load(TESTS / "lab_solutions" / f"lab{lab}.py")
    if name == "starter":
        (path,) = ROOT.glob(f"tfgraphs/labs/course/{lab}-*/starter.py")
        return load(path)
    return load(VARIANTS / f"{name}.py")


def judged(lab, check, name):
    """The Outcome of check on lab's solution `name`: judged once in the session, read by every test that asks."""
    key = getattr(check, "shares", None)
    return judged_together(lab, key, name)[check] if key else judged_alone(lab, check, name)


@functools.cache
def judged_alone(lab, check, name):
    return run_check(check, module(lab, name))


@functools.cache
def judged_together(lab, key, name):
    """{check: Outcome} of every check of lab that shares key, judged in turn on one gathering of facts, as the
    child sends them."""
    mod, sent = module(lab, name), {}
    return {check: run_check(check, mod, sent=sent) for check in checks_of(lab)
            if getattr(check, "shares", None) == key}


# (lab, check, wrong solutions that must fail it, right solutions that must pass it)
CASES = [
    (1, rerun.fed_graph_is_small, ["starter", "lab1_wrong_pyfunc"], ["reference", "lab1_right_list_feed"]),
    (1, rerun.fed_graph_is_correct, ["lab1_wrong_fixed", "lab1_wrong_same"], ["reference", "lab1_right_list_feed"]),
    (1, rerun.fed_graph_takes_any_batch, ["lab1_wrong_fixed", "lab1_wrong_same"],
     ["reference", "lab1_right_list_feed"]),
    (1, rerun.loaded_graph_needs_no_feed, ["lab1_wrong_pyfunc", "lab1_wrong_fixed", "lab1_wrong_same"],
     ["reference", "lab1_right_list_feed"]),
    (2, rerun.configs_match, ["lab2_wrong_mean", "lab2_wrong_first_device", "lab2_wrong_max"],
     ["reference", "lab2_right_other_forms"]),
    (2, rerun.op_types_match, ["lab2_wrong_mean", "lab2_wrong_first_device"], ["reference", "lab2_right_other_forms"]),
    (2, rerun.excess_is_robust, ["starter", "lab2_wrong_mean", "lab2_wrong_first_device", "lab2_wrong_max"],
     ["reference", "lab2_right_other_forms"]),
    (3, rerun.const_bytes_match, ["starter", "lab3_wrong_top_level", "lab3_wrong_in_place"],
     ["reference", "lab3_right_other_forms"]),
    (3, rerun.max_batch_matches_tensorflow, ["starter", "lab3_wrong_top_level", "lab3_wrong_in_place"],
     ["reference", "lab3_right_other_forms"]),
    (3, rerun.strip_keeps_shapes, ["lab3_wrong_top_level", "lab3_wrong_in_place"],
     ["reference", "lab3_right_other_forms"]),
    (4, observed.matches_conv1d, ["lab4_wrong_no_overlap", "lab4_wrong_all_blocks"],
     ["reference", "lab4_right_keywords", "lab4_right_conv1d_keywords", "lab4_wrong_padded",
      "lab4_wrong_convolution"]),
    (4, observed.one_shape_only, ["starter", "lab4_wrong_padded", "lab4_wrong_convolution", "lab4_wrong_all_blocks"],
     ["reference", "lab4_right_keywords", "lab4_right_conv1d_keywords"]),
    # Which executor a run ran is read from TensorFlow's partition graphs of it.
    (5, observed.warms_what_is_served, ["starter", "lab5_wrong_warms_features"],
     ["reference", "lab5_right_warms_a_list"]),
    # Lab 5's answer is what the judge says of the student's own samples, whichever outcome that is.
    (5, observed.answer_is_what_your_run_shows,
     ["starter", "lab5_wrong_old_rule", "lab5_wrong_claims_differs", "lab5_wrong_too_few"],
     ["reference", "lab5_right_cannot_tell", "lab5_right_said_in_full"]),
    # Lab 7 runs each file under tfgraphs watch once, for all its checks.
    (7, under_watch.runs_to_its_end, ["lab7_wrong_init_not_fed", "lab7_wrong_finalized_too_early"],
     ["reference", "lab7_right_other_forms", "starter"]),
    (7, under_watch.embeds_no_array, ["starter", "lab7_wrong_variable_from_array", "lab7_wrong_init_not_fed"],
     ["reference", "lab7_right_other_forms", "lab7_wrong_still_grows", "lab7_wrong_fed_every_step"]),
    (7, under_watch.graph_does_not_grow, ["starter", "lab7_wrong_still_grows"],
     ["reference", "lab7_right_other_forms", "lab7_wrong_variable_from_array"]),
    (7, under_watch.feeds_no_array_again, ["starter", "lab7_wrong_fed_every_step"],
     ["reference", "lab7_right_other_forms", "lab7_wrong_still_grows"]),
    (7, under_watch.returns_the_starters_loss, ["lab7_wrong_trainable_data", "lab7_wrong_finalized_too_early"],
     ["reference", "lab7_right_other_forms", "starter"]),
]


@pytest.mark.parametrize("lab, check, wrong, right", CASES, ids=[c[1].__name__ for c in CASES])
def test_wrong_solutions_fail_and_right_ones_pass(lab, check, wrong, right):
    for name in wrong:
        outcome = judged(lab, check, name)
        assert not outcome.passed, (name, outcome)
    for name in right:
        outcome = judged(lab, check, name)
        assert outcome.passed, (name, outcome)


# (lab, check, wrong solution, what its WRONG line must say it saw, what its hint must name)
HINTS = [
    (1, rerun.fed_graph_is_small, "starter", "the Const 'Const' holds 409,600 of them",
     "X must enter through a placeholder and the feed_dict"),
    (1, rerun.fed_graph_is_small, "lab1_wrong_float32", "raised TypeError: Input 'filter' of 'Conv2D' Op has type "
     "float64 that does not match type float32", "conv2d was given two dtypes"),
    (1, rerun.fed_graph_is_correct, "lab1_wrong_no_feed", "the feed_dict has no entry with X's shape holding x",
     "Return a feed_dict that maps your placeholder to x"),
    (1, rerun.fed_graph_is_correct, "lab1_wrong_fixed", "output shape (50, 15, 15, 6)",
     "The shape is right, the values are not: check the ops and their order"),
    (1, rerun.fed_graph_takes_any_batch, "lab1_wrong_no_feed", "the feed_dict has no entry with X's shape",
     "Return a feed_dict that maps your placeholder to x itself"),
    (1, rerun.fed_graph_takes_any_batch, "lab1_wrong_fixed", "Cannot feed value of shape (7, 32, 32, 1)",
     "The placeholder's shape fixes the batch"),
    (1, rerun.loaded_graph_needs_no_feed, "lab1_wrong_float32", "You must feed a value for placeholder tensor 'X'",
     "the network must read the variable"),
    (1, rerun.loaded_graph_needs_no_feed, "lab1_wrong_no_feed", "GraphDef is 411,", "must come from a placeholder"),
    (2, rerun.configs_match, "lab2_wrong_grappler_folding_left_on", "grappler=True, constant_folding=False: "
     "Grappler's constant folding (graph_options.rewrite_options.constant_folding) on where off was asked",
     "Set graph_options.rewrite_options.constant_folding as step 3"),
    (2, rerun.configs_match, "lab2_wrong_mean", "grappler=False, constant_folding=True: Grappler "
     "(graph_options.rewrite_options.disable_meta_optimizer) on where off was asked",
     "graph_options.rewrite_options.disable_meta_optimizer"),
    (2, rerun.op_types_match, "lab2_wrong_mean", "got ['W', 'X', '_SOURCE'", "these are node names (node_name)"),
    (2, rerun.excess_is_robust, "lab2_wrong_mean", "later runs [0.5, 0.5, 9.0] gave a typical later run of 3.33",
     "one slow run moved it"),
    (2, rerun.excess_is_robust, "lab2_wrong_grappler_folding_left_on", "later runs [0.5, 0.5, 9.0] gave a typical "
     "later run of 9", "one slow run moved it"),
    (5, observed.answer_is_what_your_run_shows, "starter", "COLD_MS = [], WARM_MS = []", "Run the Try it"),
    (5, observed.answer_is_what_your_run_shows, "lab5_wrong_old_rule", "the judge says of your samples: differs "
     "(x1.43, 95% CI x1.37 to x1.50; n=8 and 8, p<0.001); JUDGE_SAID is 'no difference'", "'cannot tell' are answers too"),
    (5, observed.answer_is_what_your_run_shows, "lab5_wrong_claims_differs", "cannot tell with n=4 and 4",
     "not what you expected"),
    (5, observed.answer_is_what_your_run_shows, "lab5_wrong_too_few", "n=3 and 3: a rank test needs 4 a side",
     "ROUNDS of at least 4"),
    # A time first_request_seconds did not measure is held against the judge's own clock.
    (5, observed.measures_both_first_requests, "lab5_wrong_invents_the_time", "warm=False: returned 1,000.00 ms, "
     "longer than the whole call took by the checker's clock", "measured around that call"),
    # A wrong warm_up fails the check of first_request_seconds too: its hint names the check it depends on.
    (5, observed.measures_both_first_requests, "lab5_wrong_warms_features", "the warmed one 1;",
     "this check depends on the one that warm_up runs what serve() runs"),
    # Ops made after the session's first run reach the judge's graph: an update colocated with a variable made before.
    # The counts are the TensorFlow version's own (114 and 432 on 2.21, 116 and 440 on 2.12).
    (6, observed.graph_does_not_grow, "starter", " ops after 2 steps, ", "count its operations"),
    (3, rerun.const_bytes_match, "starter", "got 4,000, not the bytes the sample's Consts expand to", "step 3 names"),
    (3, rerun.max_batch_matches_tensorflow, "starter", "not the largest batch TensorFlow accepts: float64: 262,144",
     "make_tensor_proto"),
    (4, observed.one_shape_only, "starter", "the convolution saw 7 shapes, 4 of them: [", "The seen line gives"),
    (7, under_watch.embeds_no_array, "starter", "Const 'MatVec/MatMul/a' of 5,120,078 bytes (float64 20000x32) in the "
     "graph (line 60)", "straight to an op"),
    (7, under_watch.embeds_no_array, "lab7_wrong_variable_from_array", "Const 'Variable/Initializer/initial_value' of "
     "5,120,126 bytes", "step 4 says what to give the Variable as initial value"),
    (7, under_watch.graph_does_not_grow, "starter", "27 ops (6 Const, 3 ExpandDims, 3 MatMul) made after the first "
     "run, during 3 runs (line 69)", "at the line the seen line names"),
    (7, under_watch.feeds_no_array_again, "starter", "the same 1,280,000-byte array fed to x_val:0 on all 3 calls "
     "(line 70)", "Feeding the same array on every call"),
    (7, under_watch.feeds_no_array_again, "lab7_wrong_fed_every_step", "the same 5,120,000-byte array fed to "
     "Placeholder:0 on all 30 calls", "A placeholder fed on every training step"),
    (7, under_watch.runs_to_its_end, "lab7_wrong_init_not_fed", "main() raised InvalidArgumentError: You must feed a "
     "value for placeholder tensor", "feed the data's placeholders once, to the initializer's run"),
    (7, under_watch.runs_to_its_end, "lab7_wrong_finalized_too_early", "main() raised RuntimeError: Graph is finalized "
     "and cannot be modified. (line 21)", "An op is made after graph.finalize()"),
    (7, under_watch.graph_does_not_grow, "lab7_wrong_init_not_fed", "none, but main() did not run to its end",
     "the first check says why it did not"),
    (7, under_watch.returns_the_starters_loss, "lab7_wrong_trainable_data", "main() returned 0.0101313; the starter's "
     "training gives 0.0101066", "must not be trainable"),
]


@pytest.mark.parametrize("lab, check, wrong, seen, hint", HINTS, ids=[f"{c[1].__name__}-{c[2]}" for c in HINTS])
def test_each_wrong_solution_is_told_what_was_seen_and_the_likely_mistake(lab, check, wrong, seen, hint):
    outcome = judged(lab, check, wrong)
    assert not outcome.passed and seen in outcome.detail and hint in outcome.hint, outcome
    # One line of what was seen: never TensorFlow's stack of the op, nor the checker's traceback.
    assert "\n" not in outcome.detail and "Traceback" not in outcome.detail and len(outcome.detail) < 600


def test_a_long_seen_line_is_cut_and_says_how_long_it_was():
    # The starter's session_config switches nothing: every field of three combinations differs.
    outcome = judged(2, rerun.configs_match, "starter")
    out = io.StringIO()
    print_outcomes(2, [outcome], out)
    seen = out.getvalue().splitlines()[1]
    assert len(outcome.detail) > SEEN_CHARS and seen.startswith("      seen: grappler=")
    assert seen.endswith(f" ... ({SEEN_CHARS} of {len(outcome.detail):,} characters shown)")
    assert len(seen) < SEEN_CHARS + 60


def test_no_step_or_hint_of_lab_2_names_the_statistic_its_check_asks_for():
    sheet = (ROOT / "tfgraphs" / "labs" / "course" / "2-first-run" / "README.md").read_text()
    step5 = sheet.split("\n5. ")[1].split("\n6. ")[0]
    said = step5 + rerun.excess_is_robust.hint + rerun.judge_excess({"excess": [0.0] * 5})[2]
    assert not any(word in said.lower() for word in ("median", "minimum", "mean", "maximum")), said


def test_every_check_of_labs_1_to_4_and_7_is_covered():
    covered = {c[1] for c in CASES}
    for checks in (rerun.CHECKS[1], rerun.CHECKS[2], rerun.CHECKS[3], observed.CHECKS[4], under_watch.CHECKS[7]):
        for check in checks:
            assert check in covered, check.__name__
    assert all(len(c[2]) >= 2 and len(c[3]) >= 2 for c in CASES)


def test_a_lab_7_main_that_never_ends_is_stopped_once_for_every_check(tmp_path):
    student = tmp_path / "forever.py"
    student.write_text("import tensorflow as tf\n\n\ndef main():\n    with tf.Graph().as_default():\n"
                       "        one = tf.constant(1.0)\n        with tf.compat.v1.Session() as sess:\n"
                       "            while True:\n                sess.run(one)\n")
    mod = load(student)
    outcomes = [run_check(check, mod, timeout_s=2.0) for check in under_watch.CHECKS[7]]
    assert all(not o.passed and o.detail.startswith("main() did not finish within 2 s") for o in outcomes), outcomes


def old_range_rule_differs(a, b):
    """The rule lab answers once followed: medians further apart than the wider min-max range of the two."""
    return abs(statistics.median(a) - statistics.median(b)) > max(max(a) - min(a), max(b) - min(b))


@pytest.mark.parametrize("cold, warm, outcome", [
    # One slow cold request hides a gap no sample crosses: the range rule saw no difference, the judge sees one.
    ([9.4, 9.5, 9.6, 9.7, 9.8, 9.9, 10.0, 31.0], [6.5, 6.6, 6.7, 6.8, 6.9, 7.0, 7.1, 7.2], "differs"),
    # Medians far apart against narrow ranges, but the samples cross: the range rule called it, the judge cannot.
    ([20.0, 20.1, 20.2, 9.0], [10.0, 6.0, 6.1, 6.2], "cannot tell"),
])
def test_lab5_answer_is_the_judges_where_the_range_rule_disagrees(cold, warm, outcome):
    old = "differs" if old_range_rule_differs(cold, warm) else "no difference"
    assert old != outcome
    for said in ("differs", "no difference", "cannot tell"):
        passed, seen, _ = observed.judge_answer({"cold": tuple(cold), "warm": tuple(warm), "said": said})
        assert passed == (said == outcome), (said, seen)
        assert seen.startswith(f"the judge says of your samples: {outcome}"), seen


@pytest.mark.parametrize("set_by_user, level", [(None, "3"), ("1", "1")], ids=["default", "users"])
def test_the_child_starts_with_tensorflows_log_level_in_its_environment(set_by_user, level, tmp_path, monkeypatch):
    """Read as TensorFlow loads: a forked child's loaded in its server, which the child's environment chooses."""
    from tfgraphs.labs import checking

    started, start = [], checking.processes.start

    def recorded(argv, **kwargs):
        started.append(kwargs["env"])
        return start(argv, **kwargs)
    monkeypatch.setattr(checking.processes, "start", recorded)
    if set_by_user is None:
        monkeypatch.delenv("TF_CPP_MIN_LOG_LEVEL", raising=False)
    else:
        monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", set_by_user)
    (script := tmp_path / "fails.py").write_text("raise ValueError(3)\n")   # the child stops as it loads the file
    with pytest.raises(UsageError, match="fails to import: ValueError: 3"):
        checking.collect(1, str(script), timeout_s=60)
    assert [env["TF_CPP_MIN_LOG_LEVEL"] for env in started] == [level]
