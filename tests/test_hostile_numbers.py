"""Hostile numbers: a flag's bad number, and a saved document no run could have made, get one line and exit 2."""

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfgraphs
from tfgraphs.cli import main
from tfgraphs.errors import UsageError
from tfgraphs.records.results import load
from tfgraphs.spec.options import Positive, Whole, batches, byte_size, feed_shapes

FIXTURES = Path(__file__).parent / "fixtures"


def changed(name, change):
    """The fixture document name, changed in place by change(doc)."""
    doc = json.loads((FIXTURES / f"{name}.json").read_text())
    change(doc)
    return doc


def setting(*keys, value):
    """change(doc): doc[k1][k2]... = value."""
    def change(doc):
        inner = doc
        for key in keys[:-1]:
            inner = inner[key]
        inner[keys[-1]] = value
    return change


def first_row_ok_with_a_failed_trial(doc):
    doc["variants"][0]["trials"][1].update(status="failed", error="worker killed")


# name -> (fixture, change): saved documents holding what no run makes.
DOCUMENTS = {
    "schema-0": ("compare", setting("schema", value=0)),
    "schema-minus": ("compare", setting("schema", value=-1)),
    "schema-true": ("compare", setting("schema", value=True)),
    "bytes-minus": ("compare", setting("variants", 0, "graph_bytes", value=-5)),
    "bytes-huge": ("compare", setting("variants", 0, "graph_bytes", value=10**15)),
    "first-minus": ("compare", setting("variants", 0, "trials", 0, "first_run_s", value=-1)),
    "runs-inf": ("compare", setting("variants", 0, "runs_s", 1, value=math.inf)),
    "rss-minus": ("compare", setting("variants", 0, "rss_bytes", "build", value=-1)),
    "peak-minus": ("compare", setting("variants", 0, "peak_rss_bytes", value=-1)),
    "batch-0": ("compare", setting("config", "batch", value=0)),
    "batch-true": ("compare", setting("config", "batch", value=True)),
    "variants-null": ("compare", setting("config", "variants", value=None)),
    "lessons-null": ("pitfalls", setting("config", "lessons", value=None)),
    "row-batch-0": ("sweep", setting("rows", 0, "batch", value=0)),
    "sweep-batches-minus": ("sweep", setting("config", "batches", 0, value=-20)),
    "contradicts": ("compare", setting("variants", 0, "first_run_s", value=5.0)),
    "failed-trial": ("compare", first_row_ok_with_a_failed_trial),
    "inspect-minus": ("inspect", setting("const_bytes", value=-1)),
}

# name -> (fixture, change, what the one line says): the other documents' numbers outside their declared ranges.
RANGES = {
    "shapes-traces-minus": ("shapes", setting("modes", 2, "traces", value=-1),
                            "modes[2].traces is -1, must be 0 or more"),
    "shapes-first-traces": ("shapes", setting("modes", 3, "first_call_traces", value=-2),
                            "modes[3].first_call_traces is -2, must be 0 or more"),
    "shapes-times-nan": ("shapes", setting("modes", 1, "times_s", 0, 2, value=math.nan),
                         "modes[1].times_s[0][2] is nan, must be a finite number, 0 or more"),
    "shapes-khz-minus": ("shapes", setting("modes", 0, "khz", 1, value=-3.5), "modes[0].khz[1] is -3.5, must be 0 or"),
    "shapes-err-inf": ("shapes", setting("modes", 5, "max_rel_err", value=math.inf),
                       "modes[5].max_rel_err is inf, must be a finite number"),
    "pitfalls-runs-minus": ("pitfalls", setting("lessons", 0, "cases", 1, "runs_s", 2, value=-0.5),
                            "lessons[0].cases[1].runs_s[2] is -0.5, must be 0 or more"),
    "pitfalls-nodes-minus": ("pitfalls", setting("lessons", 2, "cases", 0, "nodes", 1, value=-7),
                             "lessons[2].cases[0].nodes[1] is -7, must be 0 or more"),
    "pitfalls-graph-huge": ("pitfalls", setting("lessons", 6, "cases", 1, "graph_bytes", value=2**31),
                            "lessons[6].cases[1].graph_bytes is 2,147,483,648, must be from 0 to 2,147,483,647 "
                            "(protobuf's 2 GiB limit)"),
    "pitfalls-probe-0": ("pitfalls", setting("lessons", 4, "cases", 1, "probe_batch", value=0),
                         "lessons[4].cases[1].probe_batch is 0, must be at least 1"),
    "pitfalls-address-64": ("pitfalls", setting("lessons", 0, "cases", 0, "address_mod_64", value=64),
                            "lessons[0].cases[0].address_mod_64 is 64, must be from 0 to 63"),
    "pitfalls-log-minus": ("pitfalls", setting("lessons", 0, "cases", 0, "folder_log",
                                               value=[{"stage": "classic/constant_folding", "seconds": None,
                                                       "source": "constant_folding.cc:1", "foldable": -1}]),
                           "lessons[0].cases[0].folder_log[0].foldable is -1, must be 0 or more"),
    "unembed-graph-huge": ("unembed", setting("before", "graph_bytes", value=2**31),
                           "before.graph_bytes is 2,147,483,648, must be from 0 to 2,147,483,647 (protobuf's 2 GiB"),
    "unembed-runs-minus": ("unembed", setting("after", "runs_s", 0, value=-1.0), "after.runs_s[0] is -1.0, must be 0"),
    "unembed-shape-minus": ("unembed", setting("moved", 0, "shape", 1, value=-64),
                            "moved[0].shape[1] is -64, must be 0 or more"),
    "unembed-min-0": ("unembed", setting("min_bytes", value=0),
                      "unembed-min-0.json: min_bytes is 0, must be at least 1"),
    "unembed-phase-nan": ("unembed", setting("unembed_phases", "read_s", value=math.nan),
                          "unembed_phases.read_s is nan, must be a finite number, 0 or more"),
    "unembed-tolerance-minus": ("unembed", setting("tolerance", value=-1e-5), "tolerance is -1e-05, must be 0 or more"),
    "watch-exit-256": ("watch", setting("exit_code", value=256),
                       "watch-exit-256.json: exit_code is 256, must be from 0 to 255 (a process's exit status)"),
    "watch-exit-minus": ("watch", setting("exit_code", value=-9), "exit_code is -9, must be from 0 to 255"),
    "watch-runs-minus": ("watch", setting("runs", value=-4), "runs is -4, must be 0 or more"),
    "watch-script-inf": ("watch", setting("script_s", value=math.inf), "script_s is inf, must be a finite number"),
    "watch-calls-n-0": ("watch", setting("calls", 0, "n", value=0), "calls[0].n is 0, must be at least 1"),
    "watch-times-minus": ("watch", setting("calls", 0, "times_s", 1, value=-0.001),
                          "calls[0].times_s[1] is -0.001, must be 0 or more"),
    "watch-op-types-0": ("watch", setting("growth", 0, "op_types", "Mul", value=0),
                         "growth[0].op_types.Mul is 0, must be at least 1"),
    "watch-feed-text": ("watch", setting("feeds", 0, "bytes", value="many"), "feeds[0].bytes is 'many', not a number"),
    "watch-calls-number": ("watch", setting("calls", value=[5]), "calls[0] is 5, not an object"),
    "watch-pid-0": ("watch", setting("left_running", value=[{"pid": 0, "name": "sleep"}]),
                    "left_running[0].pid is 0, must be at least 1"),
    "fit-points-1": ("sweep", setting("fit", 0, "points", value=1),
                     "fit[0].points is 1, must be at least 2 (a line is fitted to two batches or more)"),
    "fit-slope-minus": ("sweep", setting("fit", 0, "bytes_per_example", value=-8192),
                        "fit[0].bytes_per_example is -8,192, must be from 0 to 2,147,483,647 (protobuf's 2 GiB"),
    "fit-overhead-huge": ("sweep", setting("fit", 1, "overhead_bytes", value=2**31),
                          "fit[1].overhead_bytes is 2,147,483,648, must be at most 2,147,483,647 (protobuf's"),
    "fit-max-batch-minus": ("sweep", setting("fit", 0, "max_batch", value=-1), "fit[0].max_batch is -1, must be 0"),
    "fit-text": ("sweep", setting("fit", value="line"), "fit is 'line', not a list of objects"),
    "probe-batch-0": ("sweep", setting("tf_error", "batch", value=0), "tf_error.batch is 0, must be at least 1"),
    "probe-rss-minus": ("sweep", setting("tf_error", "rss_after_bytes", value=-1),
                        "tf_error.rss_after_bytes is -1, must be 0 or more"),
}
DOCUMENTS.update({name: (fixture, change) for name, (fixture, change, _) in RANGES.items()})

PLUS_MINUS = [(["compare", "--batch", "+-5"], "--batch '+-5' is not a whole number"),
              (["compare", "--runs", "+-5"], "--runs '+-5' is not a whole number"),
              (["explain", "--trials", "+-5"], "--trials '+-5' is not a whole number"),
              (["compare", "--seed", "+-5"], "--seed '+-5' is not a whole number"),
              (["inspect", "{tmp}/g.pb", "--top", "+-5"], "--top '+-5' is not a whole number"),
              (["shapes", "--count", "+-5"], "--count '+-5' is not a whole number"),
              (["pitfalls", "--steps", "+-5"], "--steps '+-5' is not a whole number"),
              (["explain", "--graph", "{tmp}/g.pb", "--int-high", "+-5"], "--int-high '+-5' is not a whole number"),
              (["sweep", "--batches", "20,+-5"], "--batches '+-5' is not a whole number")]

# (argv with {tmp} for a scratch folder, what the one line says)
CASES = PLUS_MINUS + [
    (["compare", "--batch", "\u0663"], "--batch '\u0663' is not a whole number"),
    (["compare", "--batch", "\uff15"], "--batch '\uff15' is not a whole number"),
    (["compare", "--runs", "9" * 5000], "--runs 999999999999999999999999... (5,000 digits) must be at most 1,000,000"),
    (["compare", "--seed", "-" + "9" * 400], "(400 digits) must be 0 or more"),
    (["unembed", "{tmp}/g.pb", "-o", "{tmp}/out", "--min-bytes", "9" * 400], "(400 digits) must be at most"),
    (["unembed", "{tmp}/g.pb", "-o", "{tmp}/out", "--min-bytes", "1e310TiB"], "'1e310TiB' is not a size"),
    (["unembed", "{tmp}/g.pb", "-o", "{tmp}/out", "--min-bytes", "99999999TiB"],
     "--min-bytes '99999999TiB' must be at most 9,223,372,036,854,775,807 bytes"),
    (["lab", "check", "1", "{tmp}/x.py", "--timeout", "1e308"], "argument --timeout: '1e308' must be at most 86,400 s"),
    (["compare", "--timeout", "1e308"], "--timeout '1e308' must be at most 86,400 s"),
    (["compare", "--connect-timeout", "nan"], "--connect-timeout 'nan' is not a number"),
    (["report", "{tmp}/schema-0.json"], "schema-0.json: schema is 0, must be from 1 to 2"),
    (["report", "{tmp}/schema-minus.json"], "schema is -1, must be from 1 to 2"),
    (["report", "{tmp}/schema-true.json"], "schema-true.json: schema is true, not a whole number"),
    (["report", "{tmp}/bytes-minus.json"], "bytes-minus.json: variants[0].graph_bytes is -5, must be from 0 to 2,147,483,647"),
    (["report", "{tmp}/bytes-huge.json"], "variants[0].graph_bytes is 1,000,000,000,000,000, must be from 0 to "
                                          "2,147,483,647 (protobuf's 2 GiB limit)"),
    (["report", "{tmp}/first-minus.json"], "variants[0].trials[0].first_run_s is -1, must be 0 or more"),
    (["report", "{tmp}/runs-inf.json"], "variants[0].runs_s[1] is inf, must be a finite number, 0 or more"),
    (["report", "{tmp}/infinity.json"], "variants[0].first_run_s is inf, must be a finite number"),
    (["report", "{tmp}/e400.json"], "variants[0].first_run_s is inf, must be a finite number"),
    (["report", "{tmp}/rss-minus.json"], "variants[0].rss_bytes.build is -1, must be 0 or more"),
    (["report", "{tmp}/peak-minus.json"], "variants[0].peak_rss_bytes is -1, must be 0 or more"),
    (["report", "{tmp}/batch-0.json"], "batch-0.json: config.batch is 0, must be from 1 to 1,000,000,000,000"),
    (["report", "{tmp}/batch-true.json"], "config.batch is true, not a whole number"),
    (["report", "{tmp}/variants-null.json"], "variants-null.json: config.variants is null, not a list"),
    (["report", "{tmp}/lessons-null.json"], "lessons-null.json: config.lessons is null, not a list"),
    (["report", "{tmp}/row-batch-0.json"], "row-batch-0.json: rows[0].batch is 0, must be at least 1"),
    (["report", "{tmp}/sweep-batches-minus.json"], "config.batches[0] is -20, must be from 1 to 1,000,000,000,000"),
    (["report", "{tmp}/contradicts.json"], "variants[0].first_run_s is 5.0, but the median of its trials' is 0.0356"),
    (["report", "{tmp}/failed-trial.json"], "variants[0].status is 'ok', but its variants[0].trials[1] failed"),
    (["report", "{tmp}/inspect-minus.json"], "inspect-minus.json: const_bytes is -1, must be 0 or more"),
    (["report", "{tmp}/twice.json"], "twice.json holds the key 'batch' twice in one object"),
    *((["report", f"{{tmp}}/{name}.json"], said) for name, (_, _, said) in RANGES.items()),
]


@pytest.fixture
def files(tmp_path):
    """The documents of DOCUMENTS, and three whose text json reads leniently: Infinity, 1e400, a key twice."""
    for name, (fixture, change) in DOCUMENTS.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(changed(fixture, change)))
    text = (FIXTURES / "compare.json").read_text()
    first = json.loads(text)["variants"][0]["first_run_s"]
    (tmp_path / "infinity.json").write_text(text.replace(str(first), "Infinity", 1))
    (tmp_path / "e400.json").write_text(text.replace(str(first), "1e400", 1))
    (tmp_path / "twice.json").write_text(text.replace('"batch": 20', '"batch": 20, "batch": 0', 1))
    return tmp_path


@pytest.mark.parametrize("argv, said", CASES, ids=lambda c: " ".join(c)[:60] if isinstance(c, list) else None)
def test_a_bad_number_gets_one_line_and_exit_2(files, capsys, argv, said):
    try:
        code = main([a.format(tmp=files) for a in argv])
    except SystemExit as exc:   # argparse refuses a bad number itself
        code = exc.code
    err = capsys.readouterr().err
    assert (code, len(err.splitlines())) == (2, 1), err
    assert said in err


@pytest.mark.parametrize("fixture, change", [
    ("pitfalls", setting("lessons", 0, "cases", 0, "folder_log",
                         value=[{"stage": "pruning", "seconds": 0.001, "source": "meta_optimizer.cc:1",
                                 "nodes_after": 5, "nodes_change": -3, "item": 1}])),
    ("sweep", setting("fit", 1, "overhead_bytes", value=-40)),
    ("watch", setting("exit_code", value=137))])
def test_a_number_a_run_can_make_loads(fixture, change):
    """A pass that removed nodes, a fitted line's overhead below 0, a script killed by SIGKILL."""
    assert load(changed(fixture, change))


@pytest.mark.parametrize("value", [b"out.json", "out\0.json"])
def test_a_path_python_gives_that_no_file_can_have_is_refused(value):
    with pytest.raises(UsageError, match="^--json .*(bytes|NUL)"):
        tfgraphs.compare(json=value)


# Text that is nearly a number: signs, points, exponents, long digit runs, other scripts' digits, units.
NEAR = st.from_regex(r"\A\s?[+-]{0,2}[0-9\u0663\uff15\u00b2]{0,60}(\.[0-9]{0,5})?([eE][+-]?[0-9]{1,4})?"
                     r"\s?(inf|nan|KiB|MB|tib|b)?\s?\Z")
TEXTS = st.one_of(st.text(), NEAR, st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                  st.none(), st.booleans())
CHECKS = [("batch", Whole()), ("runs", Whole(most=1_000_000)), ("seed", Whole(least=0)),
          ("count", Whole(least=3, most=100_000, why="the first is left out")), ("int_high", Whole(most=2**63 - 1))]


def refused_in_one_line(name, check, value):
    """check(name, value), or None when it raised a one-line UsageError naming the flag; any other raise fails."""
    try:
        return check(name, value)
    except UsageError as exc:
        said = str(exc)
        assert "\n" not in said and "\r" not in said and said.startswith("--" + name.replace("_", "-") + " ")
        assert len(said) < 300
        return None


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_a_whole_number_is_within_its_bounds_or_refused(value):
    for name, check in CHECKS:
        found = refused_in_one_line(name, check, value)
        if found is not None:
            assert type(found) is int and check.least <= found <= (check.most or 2**63 - 1)
            if isinstance(value, str):
                # Only ASCII digits are read, so what was typed is what runs.
                assert str(found) == value.strip().lstrip("+").lstrip("0").rjust(1, "0") or value.strip() == "-0"


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_a_positive_number_is_finite_and_within_its_bound_or_refused(value):
    for check in (Positive(), Positive(most=86_400.0, unit=" s")):
        found = refused_in_one_line("timeout", check, value)
        if found is not None:
            assert type(found) is float and 0 < found <= check.most and math.isfinite(found)


@settings(max_examples=150, deadline=None)
@given(TEXTS)
def test_a_size_is_whole_bytes_within_int64_or_refused(value):
    found = refused_in_one_line("min_bytes", byte_size, value)
    if found is not None:
        assert type(found) is int and 1 <= found <= 2**63 - 1


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.lists(TEXTS).map(lambda items: ",".join(map(str, items))), st.lists(TEXTS), TEXTS))
def test_a_list_of_batches_is_sorted_whole_numbers_or_refused(value):
    found = refused_in_one_line("batches", batches, value)
    if found is not None:
        assert len(found) >= 2 and list(found) == sorted(set(found)) and all(type(b) is int and b >= 1 for b in found)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.text(), NEAR.map(lambda dims: "x=" + dims)), max_size=3))
def test_a_feed_shape_is_whole_dimensions_or_refused(value):
    found = refused_in_one_line("feed", feed_shapes, value)
    if found is not None:
        assert all(type(d) is int and d >= 1 for _, dims in found for d in dims)


@pytest.mark.parametrize("check", [Whole(), Positive(), byte_size])
def test_a_long_near_miss_is_refused_in_one_pass(check):
    """Patterns that backtracked over every split of a long digit run would take hours here."""
    for text in ("0" * 100_000 + "x", "5" + " " * 100_000 + "x", "1." + "1" * 100_000 + "x"):
        with pytest.raises(UsageError):
            check("n", text)


def test_a_python_int_too_long_to_print_is_refused_by_its_size():
    with pytest.raises(UsageError, match=r"^--runs a whole number of 33,220 bits must be at most 1,000,000$"):
        Whole(most=1_000_000)("runs", 10**10_000)
    with pytest.raises(UsageError, match="must be a finite number"):
        Positive()("timeout", 10**10_000)
