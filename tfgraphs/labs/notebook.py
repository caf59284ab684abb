"""Check a notebook's own definitions with the same checker, child process and timeout as `tfgraphs lab check`.

What is checked (the rule): the functions and classes the notebook defined, in their latest source; the modules and
the names it imported (`import numpy as np`, `from time import perf_counter`); and its plain constants (numbers,
strings, booleans, None, and tuples, lists, sets and dicts of them). They are written to a temporary .py file, in that
order, and checked as a student's file is. Everything else the cells made (arrays, graphs, sessions, demo results)
is left out, so the check never repeats a slow cell, and a function that reads such a global fails with a NameError.
Names that start with an underscore, and IPython's own (In, Out, exit, quit, get_ipython, open), are left out too.
This module imports no TensorFlow: only the child process does.
"""

import ast
import inspect
import io
import os
import re
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass

from tfgraphs.errors import UsageError

IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})   # open: IPython wraps it
PLAIN = (bool, int, float, complex, str, bytes, type(None))


def is_plain(value):
    """True for a constant whose repr is Python source that gives it back."""
    if isinstance(value, (tuple, list, set)):
        return all(is_plain(v) for v in value) and _round_trips(value)
    if isinstance(value, dict):
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return isinstance(value, PLAIN) and _round_trips(value)


def _round_trips(value):
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError):   # nan, inf, or a subclass with its own repr
        return False


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


def _globals_used(code):
    """The global (and attribute) names a function's code reads, nested functions included."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _globals_used(const)
    return names


@dataclass(frozen=True)
class Script:
    """The file a namespace is checked as: its text, the names it lacks, and where each definition starts and ends."""

    text: str
    left_out: tuple   # names the functions use that are not written, and definitions without source
    spans: tuple   # (first line, last line, name) of each definition in text


def script_of(namespace):
    """The Script of the namespace's definitions by the rule above."""
    main = namespace.get("__name__", "__main__")
    imports, constants, definitions, written, used, unreadable = [], [], [], set(), set(), []
    for name, value in namespace.items():
        if name.startswith("_") or name in IPYTHON_NAMES:
            continue
        if isinstance(value, (types.FunctionType, type)) and getattr(value, "__module__", None) == main:
            try:
                definitions.append((_definition(name, value), value.__name__))
            except (OSError, TypeError):   # Python kept no source for it
                unreadable.append(name)
                continue
            used |= _globals_used(value.__code__) if isinstance(value, types.FunctionType) else set()
        elif isinstance(value, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, type)):
            line = _import_line(name, value)
            if not line:
                continue
            imports.append(line)
        elif is_plain(value):
            constants.append(f"{name} = {value!r}")
        else:
            continue
        written.add(name)
    missing = {n for n in used - written if n in namespace and not n.startswith("_")}
    left_out = tuple(sorted(missing | set(unreadable)))
    return _assemble([("\n".join(imports), None), ("\n".join(constants), None)] + definitions, left_out)


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


def relabel(report, spans):
    """The report with each '(line N)' of the written file said as '(line K of NAME)', K counted from its def."""
    def where(match):
        line = int(match.group(1))
        for first, last, name in spans:
            if first <= line <= last:
                return f"(line {line - first + 1} of {name})"
        return match.group(0)

    return re.sub(r"\(line (\d+)\)", where, report)


def check(number, namespace, timeout_s, stream=None):
    """Print lab `number`'s checks of the namespace's definitions, ok or WRONG with hints; return the exit status."""
    from tfgraphs.labs.checking import check_lab, known_lab

    known_lab(number)   # a wrong number is the caller's error; every later UsageError is about the definitions
    stream = stream or sys.stdout
    script = script_of(namespace)
    if script.left_out:
        print(f"left out of the check: {', '.join(script.left_out)} (your functions use them, or Python kept no "
              f"source; only functions, imports and plain constants are checked)", file=stream)
    with tempfile.TemporaryDirectory(prefix=f"tfgraphs-lab{number}-") as folder:
        path = os.path.join(folder, f"lab{number}.py")
        with open(path, "w", encoding="utf-8") as out:
            out.write(script.text)
        report = io.StringIO()
        try:
            code = check_lab(number, path, stream=report, timeout_s=timeout_s)
        except UsageError as exc:
            report.write(f"WRONG loading your definitions: {str(exc).replace(path + ' ', '')}\n")
            code = 2
    stream.write(relabel(report.getvalue(), script.spans))
    return code
