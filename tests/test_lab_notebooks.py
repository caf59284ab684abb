"""Every lab notebook is its starter.py, runs headless top to bottom, and its check cell fails it and passes the solution.

Each notebook runs in a fresh Jupyter kernel, whose checks start the child process `lab check` runs the code in; the
check of a namespace without a kernel runs in this process, and make_notebooks.py in one of its own.
"""

import copy
import io
import json
import subprocess
import sys
from contextlib import redirect_stdout
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
                                       "    n = 1\n    raise ValueError(f'boom {n}')\n")
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


def cells_namespace(tmp_path, *sources):
    """A kernel's globals after it ran each source as a cell, each kept in a file of its own as IPython keeps them."""
    namespace = {"__name__": "__main__"}
    for index, source in enumerate(sources):
        cell = tmp_path / f"cell{index}.py"
        cell.write_text(source)
        exec(compile(source, str(cell), "exec"), namespace)
    return namespace


HELPED = ("import math\n\n\ndef _nodes(graph_def):\n    return list(graph_def.node) + _more(graph_def)\n\n\n"
          "def _more(graph_def):\n    return [n for fn in graph_def.library.function for n in fn.node_def]\n\n\n"
          "def const_bytes(graph_def):\n    return sum(math.prod(n.shape) for n in _nodes(graph_def))\n")
EXPERIMENT = ("node = object()\nfor fn in (const_bytes, _nodes, len):\n    pass\nsquare = lambda x: x * x\n"
              "def _demo():\n    return node, square\n")


def test_what_the_checked_functions_read_is_carried_through_helpers_and_nothing_else(tmp_path):
    """Helpers with an underscore are carried; loop variables and demo values no checked code reads are not named."""
    from tfgraphs.labs.notebook import checked_names, script_of

    script = script_of(cells_namespace(tmp_path, HELPED, EXPERIMENT), checked_names(3))
    assert script.left_out == ()
    assert script.text.startswith("import math\n\n\ndef _nodes(graph_def):")
    assert [name for _, _, name in script.spans] == ["_nodes", "_more", "const_bytes"]
    assert "node =" not in script.text and "fn =" not in script.text
    assert "_demo" not in script.text and "square" not in script.text


def test_a_name_the_checked_code_reads_and_cannot_carry_is_named_exactly(tmp_path):
    from tfgraphs.labs.notebook import checked_names, script_of

    logged = HELPED.replace("    return list(", "    print(graph_def, file=LOG)\n    return list(")
    namespace = cells_namespace(tmp_path, logged, "import os\nLOG = open(os.devnull, 'w')\n", EXPERIMENT)
    assert script_of(namespace, checked_names(3)).left_out == ("LOG",)   # read by _nodes, which const_bytes calls
    namespace["LOG"].close()


def names_the_checks_read(number):
    """mod.NAME and getattr(mod, "NAME") in lab N's checks and the functions they call, read as source (no TensorFlow
    imported)."""
    import ast
    import importlib.util

    from tfgraphs.labs.checking import CHECK_MODULES

    source = ast.parse(Path(importlib.util.find_spec(CHECK_MODULES[number]).origin).read_text())
    defs = {n.name: n for n in source.body if isinstance(n, ast.FunctionDef)}
    (lab,) = [n.value for n in source.body
              if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == f"LAB{number}"]
    pending, used = [e.id for e in lab.elts], set()
    while pending:
        name = pending.pop()
        if name in defs and name not in used:
            used.add(name)
            pending += [n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name)]
    tree = ast.Module(body=[defs[name] for name in sorted(used)], type_ignores=[])
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and getattr(n.value, "id", "") == "mod"}
    names |= {n.args[1].value for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") ==
              "getattr" and getattr(n.args[0], "id", "") == "mod"}
    return names - {"__file__"} | ({"main"} if "__file__" in names else set())   # lab 7 runs the file's main()


@pytest.mark.parametrize("number", sorted(LABS))
def test_every_name_a_check_reads_is_a_checked_name(number):
    from tfgraphs.labs.notebook import checked_names

    assert names_the_checks_read(number) and names_the_checks_read(number) <= set(checked_names(number))


def lab3_checked_three_ways(tmp_path, solution, experiment):
    """What `lab check` prints of the solution as a .py and of a notebook of it, and what the namespace check prints."""
    import tfgraphs.labs
    from tfgraphs.labs.checking import check_lab

    printed = {"py": io.StringIO(), "ipynb": io.StringIO(), "namespace": io.StringIO()}
    (tmp_path / "lab3.py").write_text(solution)
    check_lab(3, tmp_path / "lab3.py", stream=printed["py"])
    check_cell = 'if __name__ == "__main__":\n    import tfgraphs.labs\n\n    tfgraphs.labs.check(3, namespace=globals())\n'
    cells = [nbformat.v4.new_code_cell(source) for source in (solution, experiment, check_cell)]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "lab3.ipynb")
    check_lab(3, tmp_path / "lab3.ipynb", stream=printed["ipynb"])
    namespace = cells_namespace(tmp_path, solution, experiment)
    with redirect_stdout(printed["namespace"]):
        tfgraphs.labs.check(3, namespace=namespace)
    return {way: text.getvalue() for way, text in printed.items()}


TF_EXPERIMENT = ("graph = tf.Graph()\nwith graph.as_default():\n    tf.constant([1.0, 2.0], name='content')\n"
                 "graph_def = graph.as_graph_def()\nfor node in graph_def.node:   # read as graph_def.node too\n"
                 "    sizes = {node.name: const_bytes(graph_def)}\nfor fn in (const_bytes, strip_constants):\n"
                 "    result = fn(graph_def)\n")


def test_a_solution_with_an_underscore_helper_is_judged_alike_three_ways(tmp_path):
    """A .py, its notebook and the notebook's namespace, after an experiment cell: the same checks pass, nothing left out."""
    solution = (ROOT / "tests" / "lab_variants" / "lab3_right_other_forms.py").read_text()
    assert "def _all_nodes(graph_def):" in solution
    printed = lab3_checked_three_ways(tmp_path, solution, TF_EXPERIMENT)
    assert printed["py"].splitlines()[-1] == "lab 3: 3 of 3 checks passed", printed["py"]
    assert printed["namespace"] == printed["ipynb"] == printed["py"]


def test_the_namespace_check_names_what_it_could_not_carry(tmp_path):
    """A helper the checked functions call reads an open file: that name alone is said, and the check fails on it."""
    solution = (ROOT / "tests" / "lab_variants" / "lab3_right_other_forms.py").read_text()
    solution = solution.replace("    yield from graph_def.node\n", "    print(len(graph_def.node), file=LOG)\n"
                                "    yield from graph_def.node\n")
    import tfgraphs.labs

    namespace = cells_namespace(tmp_path, solution, "import os\nLOG = open(os.devnull, 'w')\n", TF_EXPERIMENT)
    with redirect_stdout(io.StringIO()) as printed:
        tfgraphs.labs.check(3, namespace=namespace)
    namespace["LOG"].close()
    lines = printed.getvalue().splitlines()
    assert lines[0] == ("left out of the check: LOG (the checked code reads them, but only functions and classes "
                        "with their source, imports and plain constants are carried into it)")
    seen = [line.strip() for line in lines if line.strip().startswith("seen:")]
    assert seen == ["seen: raised NameError: name 'LOG' is not defined (line 2 of _all_nodes)"] * 2
    assert lines[-1] == "lab 3: 1 of 3 checks passed"
