"""Each why-sentence names the record fields it rests on, and is not said about a row that lacks them."""

import functools
from dataclasses import fields

from tfgraphs.records.rows import Row

# kind (the sentence function's name) -> the Row fields it rests on; tests strip each field and expect silence.
RESTS_ON = {}


class Finding(str):
    """A sentence, with its kind and the evidence fields it rests on."""

    def __new__(cls, text, kind, evidence):
        said = super().__new__(cls, text)
        said.kind, said.evidence = kind, evidence
        return said


def has(row, fields):
    """True when every field is measured on the row: not None, nor empty where empty is the default (no trace)."""
    return all(_measured(row, f) for f in fields)


def _measured(row, name):
    value = getattr(row, name, None)
    if value is None:
        return False
    # A field whose default is None says "measured" by any value, () included; one defaulting to () does not.
    default = _DEFAULTS.get(name, ())
    return default is None or value not in ((), {})


_DEFAULTS = {f.name: f.default for f in fields(Row)}


def rests_on(*fields):
    """Declare the Row fields a sentence function reads: rows without them never reach it, and what it says is
    tagged with them."""
    def declare(fn):
        RESTS_ON[fn.__name__] = fields

        @functools.wraps(fn)
        def said(*args, **kwargs):
            held = [_with(a, fields) for a in args]
            if any(a is _LACKING for a in held):
                return []
            return [Finding(text, fn.__name__, fields) for text in fn(*held, **kwargs)]
        return said
    return declare


_LACKING = object()


def _with(arg, fields):
    """A row that lacks the evidence is _LACKING; a list of rows keeps those that have it; anything else passes."""
    if isinstance(arg, Row):
        return arg if has(arg, fields) else _LACKING
    if isinstance(arg, (list, tuple)) and arg and all(isinstance(r, Row) for r in arg):
        return type(arg)(r for r in arg if has(r, fields))
    return arg
