"""The compare explanations follow the numbers: hand-made reports, no TensorFlow."""

from tfgraphs.findings import compare as why
from tfgraphs.findings import memory
from tfgraphs.records.results import Results
from tfgraphs.records.rows import Measurement, Row
from tfgraphs.spec import network

BATCH = 1000
DATA = network.data_bytes(BATCH, "float64")
CONFIG = {"batch": BATCH, "dtype": "float64", "runs": 3, "trials": 3, "seed": 0}


def row(variant, *, graph, first, later, build=0.001, session=0.001, peak=10 * DATA, init=None, spread=0.0,
        trials=3, first_spread=0.0):
    """A row whose three later runs have median `later` and range `spread`, and whose `trials` fresh workers' first
    runs have median `first` and range `first_spread`."""
    runs = (later - spread / 2, later, later + spread / 2)
    offsets = [0.0] if trials == 1 else [first_spread * (i / (trials - 1) - 0.5) for i in range(trials)]
    return Row(variant=variant, graph_bytes=graph, const_bytes=graph - 500 if graph > 500 else 0, nodes=5,
               build_s=build, session_s=session, init_s=init, first_run_s=first, runs_s=runs,
               peak_rss_bytes=peak, rss_bytes={"start": 0, "data": DATA, "build": DATA * (2 if graph > DATA else 1)},
               max_abs_err=0.0, trials=tuple(Measurement(first_run_s=first + o, runs_s=runs) for o in offsets))


def said(*rows):
    return "\n".join(why.sentences(Results("compare", CONFIG, rows)))


def test_embedded_first_run_stands_out():
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.1, build=0.3, peak=20 * DATA),
                row("placeholder", graph=450, first=0.15, later=0.1))
    assert "The constant GraphDef is up to 8.2 MB, 1.00x the 8.2 MB of X" in text
    assert "The placeholder GraphDef is at most 450 bytes" in text
    assert "First run over median later run: 30.0x (constant), against 1.5x for placeholder" in text
    assert ("The first run took 2.85 s (constant) more than placeholder's, beyond the spread of first runs on either "
            "side (0.0 ms (constant), n=3 and n=3 (constant)), paid once before the first result") in text
    assert ("Building took 300.0 ms (constant) against 1.0 ms for placeholder, and resident memory grew by 1.0x "
            "(constant) the bytes of X: about the size of the 1 copy (constant) of X that the GraphDef's Const "
            "tensors hold") in text
    assert "Creating the session took at most 1.0 ms in every variant" in text
    assert "Peak memory: 163.8 MB (constant) against 81.9 MB for placeholder, a difference of 81.9 MB (constant) " \
        "(+10.0x (constant) the 8.2 MB of X)." in text
    assert "copies of X to memory" not in text
    assert "up to batch 262,143" in text


def test_sentences_change_with_the_numbers():
    # 30 ms between the first runs' medians, within the 40 ms spread of constant's three first runs.
    text = said(row("constant", graph=DATA + 900, first=0.18, later=0.1, session=0.5, first_spread=0.04),
                row("placeholder", graph=450, first=0.15, later=0.1, session=0.5, first_spread=0.01))
    assert ("This run does not resolve a first-run difference for constant: 180.0 ms (160.0 ms to 200.0 ms, n=3) "
            "(constant) against 150.0 ms (145.0 ms to 155.0 ms, n=3) for placeholder (median, min to max), a "
            "difference within the larger spread of first runs (40.0 ms (constant)).") in text
    assert "The first run took" not in text and "paid once" not in text and "too few" not in text
    assert "Creating the session" not in text        # 0.5 s is not negligible against a 0.15 s first run
    assert "Building took" not in text               # build times are equal


def test_first_runs_of_one_worker_each_call_no_difference():
    # 3.0 s against 0.15 s would stand out by any spread, but one first run a side is one sample of a fresh worker.
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.1, trials=1),
                row("placeholder", graph=450, first=0.15, later=0.1, trials=1))
    assert ("First run: 3.00 s (constant) against 150.0 ms for placeholder; each rests on 1 first run per variant, "
            "one per fresh worker, too few to call the difference (--trials 3 judges it).") in text
    assert "stand out" not in text and "paid once" not in text and "First run over median later run" not in text
    # A side with three first runs against one with one: still unjudged, and the counts are said as they are.
    mixed = said(row("constant", graph=DATA + 900, first=3.0, later=0.1, trials=1),
                 row("placeholder", graph=450, first=0.15, later=0.1, trials=3))
    assert "each rests on 1 to 3 first runs per variant" in mixed and "paid once" not in mixed


def test_later_runs_and_remedy():
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.01),
                row("placeholder", graph=450, first=0.15, later=0.1),
                row("variable", graph=1300, first=0.1, later=0.08, init=0.02))
    assert "Later runs take 0.10x (constant) the time of placeholder's (100.0 ms median)" in text
    assert ("variable's init, the session's first run (the initializer, fed X), took 20.0 ms once; its later runs "
            "need no feed and took 80.0 ms median, 20% less than placeholder's 100.0 ms") in text


def test_differences_within_the_spread_are_called_the_same():
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.104, peak=int(10.3 * DATA), spread=0.01),
                row("placeholder", graph=450, first=0.15, later=0.1, spread=0.006),
                row("variable", graph=1300, first=0.1, later=0.095, init=0.02, spread=0.004))
    assert ("later runs take about as long as placeholder's (100.0 ms median): 104.0 ms (constant), no measurable "
            "difference against a spread of 10.0 ms (constant)") in text
    assert "within half of X's bytes, or 5% of the process, of each other" in text and "a difference of" not in text
    assert "against placeholder's 100.0 ms, no measurable difference (spread 6.0 ms)" in text


def test_peaks_are_told_apart_only_beyond_5_percent_of_the_process():
    # 4x X's bytes apart, beyond half of X, but within 5% of a process of 100x X: the allocator's own slack.
    near = said(row("constant", graph=DATA + 900, first=3.0, later=0.1, peak=104 * DATA),
                row("placeholder", graph=450, first=0.15, later=0.1, peak=100 * DATA))
    assert "within half of X's bytes, or 5% of the process, of each other" in near and "a difference of" not in near
    far = said(row("constant", graph=DATA + 900, first=3.0, later=0.1, peak=106 * DATA),
               row("placeholder", graph=450, first=0.15, later=0.1, peak=100 * DATA))
    assert "a difference of 49.2 MB (constant) (+6.0x (constant) the 8.2 MB of X)" in far


def test_differences_beyond_the_spread_are_named():
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.104, spread=0.002),
                row("placeholder", graph=450, first=0.15, later=0.1, spread=0.002),
                row("variable", graph=1300, first=0.1, later=0.095, init=0.02, spread=0.002))
    assert "Later runs take 1.04x (constant) the time of placeholder's" in text
    assert "5% less than placeholder's 100.0 ms" in text


def test_no_baseline_no_comparison():
    text = said(row("constant", graph=DATA + 900, first=3.0, later=0.1))
    assert "placeholder" not in text and "First run over" not in text
    assert "Time to the first result (build + session + init + first run): constant 3.00 s." in text


def test_nothing_ok():
    failed = Row(status="failed", error="boom", variant="constant")
    assert why.sentences(Results("compare", CONFIG, (failed,))) == [
        "No variant produced a result, so there is nothing to explain."]


def test_why_rows_and_copies():
    report = Results("compare", CONFIG, (row("constant", graph=DATA + 928, first=1, later=0.5),
                                        row("placeholder", graph=446, first=1, later=0.5)))
    rows = {r["variant"]: r for r in why.why_rows(report)}
    assert rows["constant"]["max_batch"] == (2**31 - 1 - 928) // 8192
    assert rows["placeholder"]["max_batch"] is None
    assert rows["constant"]["first_over_later"] == 2.0
    copies = {r["variant"]: r for r in memory.growth_rows(report)}
    assert copies["constant"]["data"] == 1.0 and copies["constant"]["build"] == 1.0
    assert copies["placeholder"]["build"] == 0.0 and copies["placeholder"]["session"] is None


def test_first_run_growth_is_split_into_activations_and_the_rest():
    act = int(network.activation_bytes(BATCH, "float64"))
    grown = row("placeholder", graph=450, first=0.15, later=0.1)
    grown = Row(**{**grown.__dict__, "rss_bytes": {**grown.rss_bytes, "session": DATA, "first_run": DATA + act + DATA}})
    text = said(grown)
    parts = f"{(act + DATA) / DATA:.2f}x = {act / DATA:.2f}x activations + 1.00x the rest (placeholder)"
    assert parts in text
    short = Row(**{**grown.__dict__, "rss_bytes": {**grown.rss_bytes, "first_run": DATA + act // 2}})
    text = said(short)
    assert "activations + " not in text
    assert "grew resident memory by less than its activations" in text
    assert "copies of X" not in text
