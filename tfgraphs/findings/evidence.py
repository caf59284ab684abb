"""Findings and the evidence they rest on: each command's findings are functions registered with @finding (its
kind, the record fields it needs), said over one view of its rows; a view lacking a finding's evidence never reaches
it, and each sentence it says keeps its kind, evidence and the judge's verdicts."""

from dataclasses import dataclass, fields
from typing import Callable

from tfgraphs.records.judge import CANNOT_TELL, adjusted, fewest_a_side


class Sentence(str):
    """A sentence, with its kind, the evidence fields it rests on, and the judge's verdicts it states."""

    def __new__(cls, text, kind, evidence, verdicts=()):
        sentence = super().__new__(cls, text)
        sentence.kind, sentence.evidence, sentence.verdicts = kind, evidence, tuple(verdicts)
        return sentence

    def to_dict(self):
        """The sentence as the JSON keeps it: kind, text, evidence and verdicts."""
        return {"kind": self.kind, "text": str(self), "evidence": list(self.evidence),
                "verdicts": [v.to_dict() for v in self.verdicts]}


def judged(text, *verdicts):
    """A sentence stating the judge's verdicts: they are kept beside it in the JSON."""
    return Sentence(text, None, (), verdicts)


def more_trials(*verdicts, option="--trials"):
    """'; run with --trials 4 or more' when a verdict could not tell for too few samples a side, else ''; option names
    the workers that give those samples (--full-trials for later runs where only the full trials run them)."""
    # At each verdict's own level: 4 a side alone, 5 in a family of two (Holm), as the judge counts them.
    short = [v for v in verdicts if v.outcome == CANNOT_TELL and v.need]
    return f"; run with {option} {fewest_a_side(short)} or more" if short else ""


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


@dataclass(frozen=True)
class Record:
    """The view of a command whose document is one record (an inspection, a rewrite): it, or None where it lacks the
    evidence a finding needs, and then that finding is not said."""

    record: object

    def with_evidence(self, names):
        """The view of the record when it holds every field in names, else of None."""
        return Record(self.record if self.record is not None and has(self.record, names) else None)

    @property
    def lacking(self):
        """True when there is no record to say a finding of."""
        return self.record is None


FINDINGS = {}   # command -> [Finding, ...] in declaration order, filled as each findings module is imported


@dataclass(frozen=True)
class Finding:
    """A finding a command may state: its stable kind, the record fields it needs (a view lacking them never reaches
    it), the function saying its sentences over the view, whether it opens the page, and for the catalogue its
    sentence (template), when it is not said (unless) and what it tells (about). With per, it is said once per item
    of per(view), say(view, item); neighbours sharing per are said item by item, in turn."""

    kind: str
    needs: tuple
    say: Callable
    headline: bool = False
    template: str = ""     # the sentence as a reader sees it, its numbers named in {braces}
    unless: str = ""       # the case where it is not said, in a reader's words
    per: Callable = None
    about: str = ""
    command: str = ""


def finding(kind, needs=(), *, headline=False, template="", unless="", per=None, command=None, about=None):
    """Register the decorated function as a finding of the command its kind names (the part before the dot)."""
    def register(say):
        declared = Finding(kind, tuple(needs), say, headline, template, unless, per,
                           " ".join((say.__doc__ or "").split()) if about is None else about,
                           command or kind.split(".", 1)[0])
        listed = FINDINGS.setdefault(declared.command, [])
        # A module imported again replaces its findings in place, keeping their order.
        same = [i for i, f in enumerate(listed) if f.kind == kind]
        if same:
            listed[same[0]] = declared
        else:
            listed.append(declared)
        say.finding = declared
        return say
    return register


def sentences_of(findings, view):
    """What the findings say over view: each over the view holding its evidence (view.with_evidence), in their order."""
    out, i = [], 0
    while i < len(findings):
        group = [findings[i]]
        while group[0].per and i + len(group) < len(findings) and findings[i + len(group)].per is group[0].per:
            group.append(findings[i + len(group)])
        i += len(group)
        for item in (group[0].per(view) if group[0].per else (None,)):
            for one in group:
                out.extend(_sentences(one, view.with_evidence(one.needs), () if one.per is None else (item,)))
    return out


def together(findings, view_of):
    """What the findings say over view_of(), their verdicts one family (Holm)."""
    said = sentences_of(findings, view_of())
    family = [v for s in said for v in getattr(s, "verdicts", ())]
    if len(family) < 2:
        return said
    with adjusted(family):
        return sentences_of(findings, view_of())


def families_of(findings, view, block):
    """The verdicts the findings state over view, one list a block (block names a sentence's)."""
    families = {}
    for s in sentences_of(findings, view):
        families.setdefault(block(s), []).extend(getattr(s, "verdicts", ()))
    return list(families.values())


def answer_then_findings(findings, view_of, most=None):
    """(the answer, the findings): the headline findings' verdicts one family (Holm), the first most of them; the
    other findings said under the same correction, so a comparison the answer states reads alike wherever it is
    stated, and any other stands alone."""
    heads = [f for f in findings if f.headline]
    others = [f for f in findings if not f.headline]
    said = sentences_of(heads, view_of())[:most]
    family = [v for s in said for v in getattr(s, "verdicts", ())]
    if len(family) < 2:
        return said, sentences_of(others, view_of())
    with adjusted(family):
        return sentences_of(heads, view_of())[:most], sentences_of(others, view_of())


def _sentences(one, held, item):
    """The finding's sentences over the view held (and the item, for a finding said per item)."""
    if getattr(held, "lacking", False):
        return []
    return [Sentence(text, one.kind, one.needs, getattr(text, "verdicts", ())) for text in one.say(held, *item)]
