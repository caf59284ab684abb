"""A starter's notebook made from its .py by jupytext (the .py is the source), and a notebook turned back into a .py.

jupytext is imported only here, and only when asked: `pip install 'tfgraphs[notebooks]'`.
"""

import os
import tempfile
import warnings
from contextlib import contextmanager

from tfgraphs.errors import UsageError

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


def _jupytext():
    try:
        import jupytext
    except ImportError:
        raise UsageError("notebooks need jupytext: pip install 'tfgraphs[notebooks]'") from None
    return jupytext


def notebook_text(script_path):
    """The .ipynb text of a percent-format .py: cells in order, ids numbered, a Python 3 kernel, no other metadata."""
    jupytext = _jupytext()
    notebook = jupytext.read(script_path)
    for number, cell in enumerate(notebook.cells, 1):
        cell.id = f"cell-{number}"   # jupytext draws random ids; numbered ones keep regeneration reproducible
    notebook.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}}
    return jupytext.writes(notebook, fmt="ipynb")


def script_text(notebook_path):
    """A notebook as a percent-format .py: markdown and magics (%pip, !cmd) become comments."""
    jupytext = _jupytext()
    try:
        with warnings.catch_warnings():
            # A cell without an id (notebooks saved by older tools) is read as any other; nbformat warns of it.
            warnings.simplefilter("ignore")
            notebook = jupytext.read(notebook_path)
    except FileNotFoundError:
        raise UsageError(f"{notebook_path} does not exist") from None
    except Exception as exc:
        raise UsageError(f"{notebook_path} is not a notebook jupytext can read: {type(exc).__name__}: {exc}") from None
    return jupytext.writes(notebook, fmt="py:percent")


@contextmanager
def as_script(path):
    """Yield a .py path for path: itself, or a notebook's code written to a temporary .py."""
    if not str(path).endswith(".ipynb"):
        yield path
        return
    text = script_text(path)
    with tempfile.TemporaryDirectory(prefix="tfgraphs-notebook-") as folder:
        script = os.path.join(folder, os.path.basename(path)[:-len(".ipynb")] + ".py")
        with open(script, "w", encoding="utf-8") as out:
            out.write(text)
        try:
            yield script
        except UsageError as exc:
            # The temporary file is gone once this returns: name the notebook, and say how its lines are counted.
            raise UsageError(str(exc).replace(script, f"{path} (its code cells as one .py: lines count from "
                                                      f"there)")) from None
