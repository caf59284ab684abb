"""The Python API: the command line's options as keywords, the same checks raising UsageError, a Report back."""

import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

import fakes
import tfgraphs
from tfgraphs.api import notebook as notebook
from tfgraphs.spec.network import ExplainConfig
from tfgraphs.jobs.runner import Progress

FIXTURES = Path(__file__).parent / "fixtures"


class Tags(HTMLParser):
    """Counts of each start tag, and the text inside <table> cells."""

    def __init__(self, text):
        super().__init__()
        self.count, self.cells, self.in_cell = {}, [], False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        self.in_cell = tag in ("td", "th")

    def handle_endtag(self, tag):
        self.in_cell = False

    def handle_data(self, data):
        if self.in_cell:
            self.cells.append(data.strip())


def test_a_real_compare_returns_rows_text_and_html():
    r = tfgraphs.compare(batch=20, variants=["constant", "placeholder"], runs=2, quiet=True)
    assert isinstance(r, tfgraphs.Report) and r.command == "compare" and not r.failed and r.refused == ()
    assert [row["variant"] for row in r.rows] == ["constant", "placeholder"]
    # Two later runs in each of the four workers a variant.
    assert all(isinstance(row, dict) and row["status"] == "ok" and len(row["runs_s"]) == 8 for row in r.rows)
    x_bytes = 20 * 32 * 32 * 1 * np.dtype("float64").itemsize
    constant, placeholder = r.rows
    assert constant["const_bytes"] >= x_bytes > placeholder["const_bytes"]
    assert all(row["max_abs_err"] <= 1e-9 for row in r.rows)   # judged against the NumPy reference in the worker
    text = str(r)
    assert text.startswith("compare: batch 20, float64, ") and "\nPhases (" in text and "2 later runs" in text
    every = r.text(verbose=True)
    tags = Tags(r._repr_html_())
    assert tags.count["table"] == 3 and tags.count["li"] == len(every.split("What this run shows:")[1].split("\n- ")) - 1
    assert f"{constant['graph_bytes']:,}" in tags.cells and "What this run shows:" in r._repr_html_()


def test_html_holds_every_table_of_the_text(compare_json):
    path, doc, _ = compare_json
    r = tfgraphs.report(path)
    wide = r.text(width=None, verbose=True)
    page = r._repr_html_()
    tags = Tags(page)
    # The wide text's sections (Phases, Why, Memory), each a table, then the sentences' title.
    titles = ["Phases", "Why", "Memory: resident-memory growth per phase, in units of X's bytes",
              "What this run shows:"]
    # The sentences' title goes on with how many verdicts the findings hold: "What this run shows: (9 verdicts, ...)".
    ends = ["\n"] * (len(titles) - 1) + [" ("]
    assert all(f"\n{t}{end}" in wide and f"<h4>{t.replace(chr(39), '&#x27;')}{end.strip() and ' ('}" in page
               for t, end in zip(titles, ends))
    assert tags.count["table"] == 3 and tags.count["h4"] == 4
    assert [row["variant"] for row in r.rows] == [v["variant"] for v in doc["variants"]]
    for row in doc["variants"]:
        assert f"{row['graph_bytes']:,}" in tags.cells
    assert "<script" not in page and "&lt;" not in r._repr_html_().split("<table")[0]


def test_str_is_the_command_lines_text(compare_json):
    path, _, proc = compare_json
    assert str(tfgraphs.report(path)) == proc.stdout


def test_plot_returns_a_figure_and_leaves_the_backend_alone(compare_json, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    backend = matplotlib.get_backend()
    fig = tfgraphs.report(compare_json[0]).plot(tmp_path / "p.png")
    assert isinstance(fig, Figure) and matplotlib.get_backend() == backend
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(fig.axes[0].lines) == len(compare_json[1]["variants"])


def test_json_round_trips(compare_json, tmp_path):
    r = tfgraphs.report(compare_json[0])
    r.to_json(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == compare_json[1]


@pytest.mark.parametrize("fixture", sorted(p.stem for p in FIXTURES.glob("*.json")))
def test_every_saved_document_renders_as_html(fixture):
    r = tfgraphs.report(FIXTURES / f"{fixture}.json")
    page = r._repr_html_()
    assert "<table" in page and page.count("<table") == page.count("</table>")
    assert isinstance(r.rows, list) and all(isinstance(row, dict) for row in r.rows)


def no_worker(task, env):
    pytest.fail("no worker may start on bad input")


@pytest.mark.parametrize("call, message", [
    (lambda: tfgraphs.compare(batch=0), "--batch 0 must be at least 1"),
    (lambda: tfgraphs.compare(batch="ten"), "--batch 'ten' is not a whole number"),
    (lambda: tfgraphs.compare(batch=2.5), "--batch 2.5 is not a whole number"),
    (lambda: tfgraphs.compare(batch=True), "--batch True is not a whole number"),
    (lambda: tfgraphs.compare(dtype="int8"), "--dtype 'int8' is not one of float64, float32, float16"),
    (lambda: tfgraphs.compare(variants=["constant", "bogus"]), "unknown variant bogus"),
    (lambda: tfgraphs.compare(variants=5), "--variants 5 is not a list of variants"),
    (lambda: tfgraphs.compare(variants=[]), "no variant given"),
    (lambda: tfgraphs.compare(batch=400000, variants=["constant"]), "past the 2 GiB single-tensor limit"),
    (lambda: tfgraphs.compare(batch=100000000, variants=["placeholder"]), "is estimated to need"),
    (lambda: tfgraphs.compare(target="http://x"), "is not local, local:ps,worker or grpc://HOST:PORT"),
    (lambda: tfgraphs.compare(baseline=False), "--no-baseline needs --target"),
    (lambda: tfgraphs.compare(timeout=0), "--timeout 0 must be greater than 0"),
    (lambda: tfgraphs.compare(batch="\u00b2"), "--batch '\u00b2' is not a whole number"),
    (lambda: tfgraphs.compare(json=5), "--json 5 is not a path"),
    (lambda: tfgraphs.compare(plot=5), "is not a path"),
    (lambda: tfgraphs.compare(target=5), "--target 5 is not text"),
    (lambda: tfgraphs.compare(target="local", baseline="no"), "--baseline 'no' is not True or False"),
    (lambda: tfgraphs.compare(quiet=1), "--quiet 1 is not True or False"),
    (lambda: tfgraphs.explain(presets="default,bogus"), "unknown preset bogus"),
    (lambda: tfgraphs.explain(graph="g.pb", batch=10), "--batch sets the built-in network; it does not apply"),
    (lambda: tfgraphs.explain(graph="g.pb", variants=["constant"]), "--variants sets the built-in network"),
    (lambda: tfgraphs.explain(graph=Path("no/such.pb"), variants=list(ExplainConfig.variants)), "no/such.pb"),
    (lambda: tfgraphs.explain(graph="g.pb", fetch=None), "--fetch None is not a name or a list of names"),
    (lambda: tfgraphs.explain(graph="g.pb", feed=None), "--feed None is not NAME=D1,D2"),
    (lambda: tfgraphs.explain(graph="g.pb", tag=None), "--tag None is not text"),
    (lambda: tfgraphs.explain(trace=5), "--trace 5 is not a path"),
    (lambda: tfgraphs.sweep(batches=[10, 10]), "fewer than two different batches"),
    (lambda: tfgraphs.sweep(batches="10,ten"), "--batches 'ten' is not a whole number"),
    (lambda: tfgraphs.explain(trials=0), "--trials 0 must be at least 1"),
    (lambda: tfgraphs.explain(graph="g.pb", feed={"x": [1, "a"]}), "--feed 'a' is not a whole number"),
    (lambda: tfgraphs.sweep(dtype="int8"), "--dtype 'int8' is not one of"),
    (lambda: tfgraphs.sweep(batches=None), "--batches None is not a list of batches"),
    (lambda: tfgraphs.sweep(batches=[300000, 400000], variants=["constant"]), "past the 2 GiB single-tensor limit"),
    (lambda: tfgraphs.shapes(batch=None), "--batch None is not a whole number"),
    (lambda: tfgraphs.shapes(switch_modes=["eager"], modes=["graph"]), "--switch-modes eager not in --modes"),
    (lambda: tfgraphs.shapes(count=2), "--count 2 must be at least 3"),
    (lambda: tfgraphs.shapes(modes="eager,turbo"), "unknown mode turbo"),
    (lambda: tfgraphs.pitfalls(steps=1), "--steps 1 must be at least 2"),
    (lambda: tfgraphs.pitfalls(lessons=["nope"]), "unknown lesson nope"),
    (lambda: tfgraphs.pitfalls(batch=400000, lessons="graph-growth", variants="constant"), "past the 2 GiB"),
    (lambda: tfgraphs.pitfalls(seed=-1), "--seed -1 must be 0 or more"),
    (lambda: tfgraphs.inspect("no/such/graph.pb"), "no/such/graph.pb"),
    (lambda: tfgraphs.inspect(FIXTURES / "compare.json", top=0), "--top 0 must be at least 1"),
    (lambda: tfgraphs.unembed("no/such/graph.pb", out="x"), "no/such/graph.pb"),
    (lambda: tfgraphs.unembed("g.pb", out=None), "--out is needed"),
    (lambda: tfgraphs.unembed("g.pb", out="x", check="no"), "--check 'no' is not True or False"),
    (lambda: tfgraphs.unembed("g.pb", out="x", min_bytes="2 XB"), "--min-bytes '2 XB' is not a size"),
    (lambda: tfgraphs.unembed("g.pb", out="x", feed=["x=1,0"]), "--feed 'x=1,0' is not NAME=D1,D2"),
    (lambda: tfgraphs.report("no/such.json"), "cannot read no/such.json"),
    (lambda: tfgraphs.report(FIXTURES / "compare.txt"), "is not JSON"),
])
def test_bad_input_raises_usage_error(call, message, monkeypatch):
    fakes.install(monkeypatch, no_worker)
    with pytest.raises(tfgraphs.UsageError, match=None) as caught:
        call()
    assert isinstance(caught.value, ValueError) and message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_failed_worker_is_a_failed_row(monkeypatch, capsys):
    fakes.install(monkeypatch, lambda task, env: fakes.failed_document() if task.variant == "constant"
                  else fakes.seed_document())
    r = tfgraphs.compare(batch=20, variants="constant,placeholder", runs=2, trials=1)
    assert r.failed and [row["status"] for row in r.rows] == ["failed", "ok"]
    assert "FAILED constant: worker killed by signal SIGKILL" in str(r)
    assert "[2/2" in capsys.readouterr().err


def test_quiet_says_nothing(monkeypatch, capsys):
    fakes.install(monkeypatch, lambda task, env: fakes.seed_document())
    tfgraphs.compare(batch=20, variants=["placeholder"], runs=2, quiet=True)
    assert capsys.readouterr().err == ""


class FakeHandle:
    def __init__(self):
        self.shown = []

    def update(self, data, raw):
        self.shown.append(data["text/plain"])


def test_in_a_notebook_progress_is_one_line_updated(monkeypatch):
    handle = FakeHandle()
    monkeypatch.setattr(notebook, "in_notebook", lambda: True)
    monkeypatch.setattr(notebook.CellLine, "__init__",
                        lambda self: (setattr(self, "pending", ""), setattr(self, "handle", handle)) and None)
    p = notebook.progress(total=2)
    with p.step("constant") as say:
        say("build")
        say("first run")
    assert len(handle.shown) == 2 and all("\r" not in s and "\n" not in s for s in handle.shown)
    assert handle.shown[-1].endswith("constant: first run") and handle.shown[0].startswith("[1/2")
    assert notebook.progress(total=2, quiet=True).quiet


def test_outside_a_notebook_progress_goes_to_stderr():
    p = notebook.progress(total=1)
    assert isinstance(p, Progress) and p.stream is sys.stderr and not notebook.in_notebook()


def test_importing_tfgraphs_imports_no_tensorflow():
    import subprocess

    code = ("import sys, tfgraphs; tfgraphs.compare; tfgraphs.Report; "
            "assert 'tensorflow' not in sys.modules, 'tensorflow imported'; print(sorted(tfgraphs.__all__))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "compare" in out and "UsageError" in out and "report" in out


def test_the_command_line_shows_the_apis_defaults(capsys):
    from tfgraphs.cli import main

    with pytest.raises(SystemExit):
        main(["sweep", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default 500,1000,2000,4000)" in help_text and "(default 5; at most 1,000,000)" in help_text


@pytest.mark.parametrize("fixture, lines", [("compare", 4 * 4), ("explain", 12), ("explain-trials", 6), ("sweep", None),
                                            ("shapes", 16), ("pitfalls", 2 * 2)])
def test_each_plot_draws_its_rows(fixture, lines):
    pytest.importorskip("matplotlib")
    fig = tfgraphs.report(FIXTURES / f"{fixture}.json").plot()
    if fixture == "compare":   # a bar per phase x variant, and a marker per variant for its later runs
        assert len(fig.axes[0].patches) == lines and len(fig.axes[0].lines) == 4
    elif fixture == "explain":   # a bar per variant x preset: this run has no log of its first run
        assert len(fig.axes[0].patches) == lines
    elif fixture == "explain-trials":   # the logged first run: its 4 largest passes, the others, the rest
        assert len(fig.axes[0].patches) == lines
    elif lines is not None:    # a line per variant x trial (two in this fixture), or per mode x pass
        assert len(fig.axes[0].lines) == lines
    else:
        assert len(fig.axes) == 2 and fig.axes[0].lines


def test_a_report_without_a_plot_says_so():
    pytest.importorskip("matplotlib")
    with pytest.raises(tfgraphs.UsageError, match="^inspect has no plot: it draws no figure$"):
        tfgraphs.report(FIXTURES / "inspect.json").plot()


def test_a_refused_row_is_kept_and_said(monkeypatch, capsys):
    fake = fakes.install(monkeypatch, lambda task, env: fakes.seed_document())
    r = tfgraphs.compare(batch=400000, variants=["constant", "placeholder"], runs=2, trials=1, force=True,
                         quiet=True)
    assert [t.variant for t in fake.tasks] == ["placeholder"]
    assert len(r.refused) == 1 and r.refused[0].startswith("constant: ") and "2 GiB" in r.refused[0]
    assert [row["status"] for row in r.rows] == ["failed", "ok"] and r.failed and "2 GiB" in r.rows[0]["error"]
    assert capsys.readouterr().err == f"tfgraphs: refusing {r.refused[0]}\n"


def test_the_api_defaults_are_the_jobs_and_the_specs():
    """The signatures spell defaults out for readers; they must be the values the jobs and specs define."""
    import inspect as pyinspect

    from tfgraphs.jobs import owngraph
    from tfgraphs.jobs.owngraph import UNEMBED as unembed
    from tfgraphs.spec import network, pitfalls, shapes
    from tfgraphs.spec.owngraph import INT_HIGH, MIN_BYTES

    for func, config in ((tfgraphs.compare, network.Config), (tfgraphs.explain, network.ExplainConfig),
                         (tfgraphs.sweep, network.SweepConfig), (tfgraphs.shapes, shapes.Config),
                         (tfgraphs.pitfalls, pitfalls.Config), (tfgraphs.unembed, unembed.Config)):
        given = pyinspect.signature(func).parameters
        for field in config.__dataclass_fields__.values():
            # switch_modes None means the defaults that are in modes; place is data=JOB as the flag says it.
            if field.name in given and field.name not in ("switch_modes", "place", "path", "out"):
                assert given[field.name].default == field.default, (func.__name__, field.name)
    assert pyinspect.signature(tfgraphs.explain).parameters["int_high"].default == INT_HIGH
    assert pyinspect.signature(tfgraphs.unembed).parameters["min_bytes"].default == MIN_BYTES
    for name in ("tag", "signature"):
        assert pyinspect.signature(tfgraphs.explain).parameters[name].default == owngraph.Config.__dataclass_fields__[
            name].default


def test_labs_check_is_reached_from_import_tfgraphs():
    import subprocess

    code = "import sys, tfgraphs; print(callable(tfgraphs.labs.check), 'tensorflow' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout == "True False\n"
