"""Notebooks and .py files of the labs: a starter's notebook made from its .py, a notebook's code cells as a .py,
and a notebook's namespace as a .py, each checked as a student's file is (labs.checking).

jupytext is imported only here, and only when asked: `pip install 'tfgraphs[notebooks]'`. What of a namespace is
checked (the rule): the names the lab's checks read (those its starter defines at top level), and, from the
source of each function and class among them, the global names it reads, through every helper it calls, whatever their
names (an underscore too). Each is carried into a temporary .py file when it can be: a function or class the notebook
defined, in its latest source; a module or a name it imported (`import numpy as np`, `from time import perf_counter`);
a plain constant (numbers, strings, booleans, None, and tuples, lists, sets and dicts of them). That file is checked as
a student's file is. Nothing else the cells made (arrays, graphs, sessions, open files, loop variables, demo results)
is carried, so the check never repeats a slow cell; of those, only the ones the checked code reads are named, since
that code then fails with a NameError. IPython's own names (In, Out, exit, quit, get_ipython, open) are never carried.
This module imports no TensorFlow: only the child process does.
"""

import ast
import dis
import inspect
import os
import re
import sys
import tempfile
import textwrap
import types
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

from tfgraphs.errors import UsageError
from tfgraphs.labs import lab_folder

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}
IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})   # open: IPython wraps it
PLAIN = (bool, int, float, complex, str, bytes, type(None))
# Instructions that read a global: attribute names share co_names with globals, so co_names alone would count
# `graph_def.node` as a read of a loop variable named node.
GLOBAL_READS = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS"})


def _jupytext():
    """The jupytext module, or a UsageError that says how to install it."""
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
    readable(notebook, notebook_path)
    return jupytext.writes(notebook, fmt="py:percent")


def readable(notebook, path):
    """UsageError in one line unless the notebook is nbformat 4 and every cell's source is text."""
    version = notebook.get("nbformat")
    if version != 4:
        # nbformat 3 keeps its cells in worksheets, under other keys: jupytext writes only 4.
        raise UsageError(f"{path} is a notebook of nbformat {version}; tfgraphs reads nbformat 4 (convert it: "
                         f"jupyter nbconvert --to notebook --inplace {path})")
    for number, cell in enumerate(notebook.get("cells", ()), 1):
        source = cell.get("source") if isinstance(cell, dict) else None
        if not isinstance(source, str):
            shown = "null" if source is None else "a number" if isinstance(source, (int, float)) else "an object"
            raise UsageError(f"{path}: cell {number}'s source is {shown}, not text or a list of lines")


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


def is_plain(value):
    """True for a constant whose repr is Python source that gives it back."""
    if isinstance(value, (tuple, list, set)):
        return all(is_plain(v) for v in value) and _round_trips(value)
    if isinstance(value, dict):
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return isinstance(value, PLAIN) and _round_trips(value)


def _round_trips(value):
    """True when the repr of value reads back as value."""
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):   # nan, inf, or a subclass with its own repr
        return False


def checked_names(number):
    """The names lab `number`'s checks read of a solution: the functions, classes and constants its starter defines."""
    tree = ast.parse((lab_folder(number) / "starter.py").read_text(encoding="utf-8"))
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [target.id for target in targets if isinstance(target, ast.Name)]
    return tuple(dict.fromkeys(names))


def _import_line(name, value):
    """`import a.b as name` or `from a import b as name` when value is reachable by that import, else None."""
    if isinstance(value, types.ModuleType):
        if sys.modules.get(value.__name__) is not value:
            return None
        return f"import {name}" if value.__name__ == name else f"import {value.__name__} as {name}"
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", "")
    if not module or "." in qualname or getattr(sys.modules.get(module), qualname, None) is not value:
        return None
    return f"from {module} import {qualname} as {name}"


def _definition(name, value):
    """The source that defines value under name; raises OSError or TypeError when Python kept none."""
    if value.__name__ == "<lambda>":
        raise TypeError("a lambda's source is the whole line around it, not a definition")
    source = textwrap.dedent(inspect.getsource(value)).rstrip() + "\n"
    return source if value.__name__ == name else f"{source}{name} = {value.__name__}\n"


def _globals_read(code):
    """The global names code reads, in the functions and classes it makes too; what a body stores is its own."""
    read, stored = set(), set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in GLOBAL_READS:
            read.add(instruction.argval)
        elif instruction.opname == "STORE_NAME":
            stored.add(instruction.argval)
    read -= stored
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            read |= _globals_read(const)
    return read


@dataclass(frozen=True)
class Part:
    """What carries one name into the file: an import, a constant or a definition, and the globals its source reads."""

    kind: str   # "import", "constant" or "definition"
    source: str
    reads: frozenset = frozenset()
    label: str = ""   # a definition's own name, which its lines are counted from in the printed checks


def _defined_here(value, main):
    """True for a function or class the namespace's own code defined."""
    return isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) == main


def _part(name, value, main):
    """The Part that carries value under name, or None when nothing can."""
    if _defined_here(value, main):
        try:
            source = _definition(name, value)
            code = compile(source, name, "exec")   # what getsource found must stand on its own in the file
        except (OSError, TypeError, SyntaxError):   # Python kept no source for it
            return None
        return Part("definition", source, frozenset(_globals_read(code)), value.__name__)
    if isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
        line = _import_line(name, value)
        return Part("import", line) if line else None
    return Part("constant", f"{name} = {value!r}") if is_plain(value) else None


def _own(name):
    """True for a name a cell may have made: not a module's dunder (__name__, __builtins__), not IPython's."""
    return not (name.startswith("__") and name.endswith("__")) and name not in IPYTHON_NAMES


@dataclass(frozen=True)
class Script:
    """The file a namespace is checked as: its text, the names it lacks, and where each definition starts and ends."""

    text: str
    left_out: tuple   # names the checked code reads that could not be carried (no source, or not a constant)
    spans: tuple   # (first line, last line, name) of each definition in text


def _carried(namespace, checked=None):
    """({name: its Part, or None}, the names the check needs) of `checked` and all they read, through every helper."""
    main = namespace.get("__name__", "__main__")
    # Without a lab's names, every name a cell made is a start; only what a definition reads is then needed.
    starts = list(checked) if checked is not None else [n for n in namespace if not n.startswith("_")]
    needed, parts, pending = set(checked or ()), {}, [n for n in starts if _own(n)]
    while pending:
        name = pending.pop()
        if name in parts or name not in namespace or not _own(name):
            continue
        value = namespace[name]
        parts[name] = part = _part(name, value, main)
        if part is not None:
            needed |= part.reads
            pending += sorted(part.reads)
        elif _defined_here(value, main):
            needed.add(name)   # a definition of the notebook's without source: its check cannot be what it wrote
    return parts, needed


def script_of(namespace, checked=None):
    """The Script of the names `checked` (default: every name without an underscore) and all they read."""
    parts, needed = _carried(namespace, checked)
    order = {name: index for index, name in enumerate(namespace)}   # the order the cells first made them
    found = [parts[name] for name in sorted(parts, key=order.get) if parts[name] is not None]
    imports = "\n".join(p.source for p in found if p.kind == "import")
    constants = "\n".join(p.source for p in found if p.kind == "constant")
    definitions = [(p.source, p.label) for p in found if p.kind == "definition"]
    left_out = tuple(sorted(name for name in needed if name in parts and parts[name] is None))
    return _assemble([(imports, None), (constants, None)] + definitions, left_out)


def _assemble(parts, left_out):
    """A Script of the (source, definition name or None) parts, two blank lines apart."""
    texts, spans, first = [], [], 1
    for source, name in parts:
        if not source:
            continue
        source = source.rstrip("\n")
        last = first + source.count("\n")
        texts.append(source)
        if name:
            spans.append((first, last, name))
        first = last + 3
    return Script("\n\n\n".join(texts) + "\n", left_out, tuple(spans))


def relabel(text, spans):
    """The text with each '(line N)' of the written file said as '(line K of NAME)', K counted from its def."""
    def where(match):
        line = int(match.group(1))
        for first, last, name in spans:
            if first <= line <= last:
                return f"(line {line - first + 1} of {name})"
        return match.group(0)

    return re.sub(r"\(line (\d+)\)", where, text)

