"""The Python API in a real Jupyter kernel: progress is one line updated in place, and the Report shows as HTML."""

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    "import tfgraphs",
    'r = tfgraphs.compare(batch=20, variants=["constant", "placeholder"], runs=2, trials=1)\nr',
    "r.plot()",
    "bad = None\ntry:\n    tfgraphs.compare(batch=0)\nexcept tfgraphs.UsageError as exc:\n    bad = str(exc)\nprint(bad)",
]


@pytest.fixture(scope="module")
def executed():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    return notebook


def test_the_report_shows_its_answer_then_its_figure_then_its_tables(executed):
    outputs = executed.cells[1].outputs
    (result,) = [o for o in outputs if o.output_type == "execute_result"]
    html = result.data["text/html"]
    answer, figure, table = (html.index(s) for s in ('class="tfgraphs-answer"', '<img alt="compare figure"', "<table"))
    assert answer < figure < table and "Embedded X (graph up to" in html[answer:figure]
    assert html.count("<table") == 3 and "What this run shows:" in html
    assert result.data["image/png"] and 'src="data:image/png;base64,' in html
    assert result.data["text/plain"].startswith("<tfgraphs.Report compare: 2 rows")


def test_progress_is_one_line_updated_in_place(executed):
    outputs = executed.cells[1].outputs
    shown = [o for o in outputs if o.output_type == "display_data"]
    assert len(shown) == 1 and not [o for o in outputs if o.output_type == "stream"]
    line = shown[0].data["text/plain"]
    assert line.startswith("[2/2") and "placeholder" in line and "\r" not in line and "\n" not in line


def test_a_plot_shows_as_png_without_changing_the_backend(executed):
    (result,) = executed.cells[2].outputs
    assert result.output_type == "execute_result" and result.data["image/png"]


def test_bad_input_raises_usage_error_in_the_kernel(executed):
    (out,) = executed.cells[3].outputs
    assert out.text.strip() == "--batch 0 must be at least 1"
