"""Each why-sentence names the record fields it rests on, and is not said about a row that lacks them; a command's
findings are declared as data (Finding) and said over one view of its rows."""

import functools
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Callable

from tfgraphs.records.judge import Verdict

# kind (the sentence function's module and name) -> the record fields it rests on; tests strip each one and expect
# silence.
RESTS_ON = {}
ABOUT = {}   # kind -> what its sentence function says it tells, for the catalogue of kinds not yet declared as data


class Said(str):
    """A sentence, with its kind, the evidence fields it rests on, and the judge's verdicts it states."""

    def __new__(cls, text, kind, evidence, verdicts=()):
        said = super().__new__(cls, text)
        said.kind, said.evidence, said.verdicts = kind, evidence, tuple(verdicts)
        return said

    def to_dict(self):
        return {"kind": self.kind, "text": str(self), "evidence": list(self.evidence),
                "verdicts": [v.to_dict() for v in self.verdicts]}


def judged(text, *verdicts):
    """A sentence stating the judge's verdicts: they are kept beside it in the JSON."""
    return Said(text, None, (), verdicts)


def has(row, names):
    """True when every field is measured on the row: not None, nor empty where empty is the default (no trace)."""
    return all(_measured(row, name) for name in names)


def _measured(row, name):
    value = getattr(row, name, None)
    if value is None:
        return False
    # A field whose default is None says "measured" by any value, () included; one defaulting to () does not.
    default = next((f.default for f in fields(row) if f.name == name), ())
    return default is None or value not in ((), {})


def _record(arg):
    """A row or a report: a dataclass instance, but not the judge's verdict a sentence may be handed."""
    return is_dataclass(arg) and not isinstance(arg, (type, Verdict))


def rests_on(*names):
    """Declare the Row fields a sentence function reads: rows without them never reach it, and what it says is
    tagged with them."""
    def declare(fn):
        kind = f"{fn.__module__.rsplit('.', 1)[-1]}.{fn.__name__}"
        RESTS_ON[kind] = names
        ABOUT[kind] = " ".join((fn.__doc__ or "").split())

        @functools.wraps(fn)
        def said(*args, **kwargs):
            held = [_with(a, names) for a in args]
            if any(a is _LACKING for a in held):
                return []
            return [Said(text, kind, names, getattr(text, "verdicts", ())) for text in fn(*held, **kwargs)]
        return said
    return declare


_LACKING = object()


def _with(arg, names):
    """A row that lacks the evidence is _LACKING; a list of rows, or a report's rows, keep those that have it; anything
    else passes."""
    if _record(arg) and hasattr(arg, "rows") and hasattr(arg, "command"):
        return replace(arg, rows=tuple(r for r in arg.rows if has(r, names)))
    if _record(arg):
        return arg if has(arg, names) else _LACKING
    if isinstance(arg, (list, tuple)) and arg and all(_record(r) for r in arg):
        return type(arg)(r for r in arg if has(r, names))
    return arg


@dataclass(frozen=True)
class Finding:
    """A finding a command may state: its stable kind, the record fields it needs (rows lacking them never reach it),
    when it is said over the command's view of the rows, the sentences it says, and whether it opens the page. With
    per, it is said once per item of per(view), when(view, item) and say(view, item); neighbours sharing per are said
    item by item, in turn."""

    kind: str
    needs: tuple
    when: Callable
    say: Callable
    headline: bool = False
    template: str = ""     # the sentence as a reader sees it, its numbers named in {braces}
    unless: str = ""       # the case where it is not said, in a reader's words
    per: Callable = None

    def __post_init__(self):
        RESTS_ON[self.kind] = self.needs


def said_by(declared, view):
    """What the declarations say over view: each over the rows holding its evidence (view.having), in their order."""
    out, i = [], 0
    while i < len(declared):
        group = [declared[i]]
        while group[0].per and i + len(group) < len(declared) and declared[i + len(group)].per is group[0].per:
            group.append(declared[i + len(group)])
        i += len(group)
        for item in (group[0].per(view) if group[0].per else (None,)):
            for finding in group:
                out.extend(_said(finding, view.having(finding.needs), () if finding.per is None else (item,)))
    return out


def _said(finding, held, item):
    """The finding's sentences over the view held (and the item, for a finding said per item), when it is said."""
    if getattr(held, "lacking", False) or not finding.when(held, *item):
        return []
    return [Said(text, finding.kind, finding.needs, getattr(text, "verdicts", ())) for text in finding.say(held, *item)]


@dataclass(frozen=True)
class Record:
    """The view of a command whose document is one record (an inspection, a rewrite): it, or None where it lacks the
    evidence a finding needs, and then that finding is not said."""

    record: object

    def having(self, names):
        return Record(self.record if self.record is not None and has(self.record, names) else None)

    @property
    def lacking(self):
        return self.record is None


def on_record(say):
    """say (or when) over a Record view: the function of the record itself."""
    return lambda v: say(v.record)
