"""Every lab notebook is its starter.py, runs headless top to bottom, and its check cell fails it and passes the solution.

Each notebook runs in a fresh Jupyter kernel, whose checks start the child process `lab check` runs the code in; the
check of a namespace without a kernel runs in this process, and make_notebooks.py in one of its own.
"""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfgraphs.labs import LABS

nbclient = pytest.importorskip("nbclient", reason="pip install -e '.[test]' (nbclient runs the notebooks)")
nbformat = pytest.importorskip("nbformat")
pytest.importorskip("jupytext")

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "tfgraphs" / "labs" / "course"
SOLUTIONS = ROOT / "tests" / "lab_solutions"


def notebook_path(number):
    (path,) = COURSE.glob(f"{number}-*/starter.ipynb")
    return path


def test_notebooks_are_made_from_their_starters():
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_notebooks.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nrun: python scripts/make_notebooks.py"


def test_drift_is_noticed_and_mended(tmp_path, monkeypatch, capsys):
    """A starter.py edited after its notebook was made: --check names it and fails; a plain run remakes it."""
    import importlib.util
    import shutil

    spec = importlib.util.spec_from_file_location("make_notebooks", ROOT / "scripts" / "make_notebooks.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    lab = tmp_path / "tfgraphs" / "labs" / "course" / "4-shapes"
    shutil.copytree(COURSE / "4-shapes", lab)
    monkeypatch.setattr(script, "COURSE", lab.parent)
    assert script.main(["--check"]) == 0
    starter = lab / "starter.py"
    starter.write_text(starter.read_text().replace("block_len)", "block_len, n=1)"))
    assert script.main(["--check"]) == 1
    assert capsys.readouterr().out == "out of date: tfgraphs/labs/course/4-shapes/starter.ipynb\n"
    assert script.main([]) == 0 and script.main(["--check"]) == 0
    assert "block_len, n=1)" in (lab / "starter.ipynb").read_text()


@pytest.mark.parametrize("number", sorted(LABS))
def test_notebook_shape(number):
    """An install cell first (tagged), the check of lab N last."""
    cells = json.loads(notebook_path(number).read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code[0]["metadata"] == {"tags": ["install"]}
    install = "".join(code[0]["source"]).splitlines()
    assert install[-2:] == ['if importlib.util.find_spec("tfgraphs") is None:',
                            '    subprocess.run([sys.executable, "-m", "pip", "install", "-q", TFGRAPHS_SOURCE], '
                            'check=True)']
    assert f"tfgraphs.labs.check({number}, namespace=globals())" in "".join(code[-1]["source"])
    assert all(c["outputs"] == [] for c in code)


def check_output(cell):
    """The text a check cell printed."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def solution_appended(notebook, number):
    """The starter notebook, then the reference solution as one cell and the check cell again (one kernel)."""
    source = (SOLUTIONS / f"lab{number}.py").read_text()
    extended = copy.deepcopy(notebook)
    extended.cells += [nbformat.v4.new_code_cell(source), copy.deepcopy(notebook.cells[-1])]
    for index, cell in enumerate(extended.cells):
        cell.id = f"cell-{index}"
    return extended


@pytest.mark.parametrize("number", sorted(LABS))
def test_notebook_runs_and_checks(number, tmp_path):
    """Top to bottom on a fresh kernel: the starter's check says WRONG; after the solution's cell, all ok."""
    notebook = solution_appended(nbformat.read(notebook_path(number), as_version=4), number)
    client = nbclient.NotebookClient(notebook, timeout=240, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()   # raises CellExecutionError on any cell's error
    assert notebook.cells[1].outputs == []   # tfgraphs is installed here, so the install cell ran no pip
    starter, solution = check_output(notebook.cells[-3]), check_output(notebook.cells[-1])
    assert "WRONG" in starter and "hint:" in starter, starter
    assert starter.strip().splitlines()[-1].startswith(f"lab {number}: ")
    assert "WRONG" not in solution and "left out" not in solution, solution
    passed = solution.strip().splitlines()[-1]
    total = passed.split(" of ")[1].split()[0]
    assert passed == f"lab {number}: {total} of {total} checks passed", solution


def test_what_of_a_namespace_is_checked(tmp_path, monkeypatch):
    """Functions, imports and plain constants are written; other values are not, and those a function needs are named."""
    from tfgraphs.labs.notebook import script_of

    (tmp_path / "cells.py").write_text(
        "import numpy as np\nfrom time import perf_counter as clock\nimport os.path\n"
        "KEEP = {'dtype'}\nSIZES = (1, 2.5, 'x', None)\nLIMIT = float('nan')\nDATA = np.zeros(3)\n_hidden = 1\n"
        "def scaled(a):\n    return np.asarray(a) * SIZES[1] + len(DATA) + clock() * 0\n"
        "class Box:\n    size = 2\n"
        "alias = scaled\nexec('def made():\\n    return 1\\n')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import cells

    script = script_of(vars(cells))
    text = script.text
    assert text.splitlines()[:3] == ["import numpy as np", "from time import perf_counter as clock",
                                     "import os"]
    assert "KEEP = {'dtype'}\nSIZES = (1, 2.5, 'x', None)\n" in text
    assert "def scaled(a):" in text and "class Box:" in text and text.endswith("alias = scaled\n")
    assert "LIMIT =" not in text and "DATA =" not in text and "_hidden" not in text
    assert script.left_out == ("DATA", "made")   # made has no source: exec'd
    lines = text.splitlines()
    assert [(lines[first - 1].split("(")[0], lines[last - 1]) for first, last, _ in script.spans] == [
        ("def scaled", "    return np.asarray(a) * SIZES[1] + len(DATA) + clock() * 0"), ("class Box:", "    size = 2"),
        ("def scaled", "alias = scaled")]
    namespace = {}
    exec(compile(text, "checked.py", "exec"), namespace)   # the written file stands on its own
    assert namespace["alias"] is namespace["scaled"] and namespace["KEEP"] == {"dtype"}


def test_check_says_an_errors_line_in_the_cells_terms(tmp_path, capsys):
    """The notebook's process writes the cells to a file and judges what the child sends; a line in the cell's terms."""
    import importlib.util

    import tfgraphs.labs

    (tmp_path / "cells.py").write_text("import os\n\ndef blocked_conv1d(x, filters, block_len):\n"
                                       "    n = len(x)\n    raise ValueError(f'boom {n}')\n")
    # This process stands for the notebook's; a name of its own, since another test imports a cells module too.
    spec = importlib.util.spec_from_file_location("error_line_cells", tmp_path / "cells.py")
    cells = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cells)
    tfgraphs.labs.check(4, namespace=vars(cells))
    with pytest.raises(ValueError) as refused:
        tfgraphs.labs.check(9, namespace={})
    lines = capsys.readouterr().out.splitlines() + [str(refused.value)]
    assert lines[0].startswith("WRONG blocked_conv1d(x, filters, block_len) equals tf.nn.conv1d")
    assert lines[1] == "      seen: raised ValueError: boom 1 (line 3 of blocked_conv1d)"   # counted from its def
    assert lines[-2:] == ["lab 4: 0 of 2 checks passed", "no lab 9; the labs are 1, 2, 3, 4, 5, 6, 7"]


def test_the_install_cell_names_this_versions_wheel():
    import tfgraphs

    wheel = f'TFGRAPHS_SOURCE = "tfgraphs-{tfgraphs.__version__}-py3-none-any.whl"'
    for starter in sorted(COURSE.glob("*/starter.py")):
        assert wheel in starter.read_text(), starter


def test_a_lambda_is_left_out_and_named_not_a_syntax_error():
    from tfgraphs.labs.notebook import script_of

    namespace = {"__name__": __name__, "square": lambda x: x * x, "LIMIT": 3}   # as a cell defines them
    script = script_of(namespace)
    compile(script.text, "lab.py", "exec")   # the written file is valid Python
    assert "square" in script.left_out and "LIMIT = 3" in script.text
