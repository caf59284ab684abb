"""A command's document that is one record: the envelope, the record's fields, then what it ran on."""

from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import ClassVar

from tfgraphs.records.rows import known
from tfgraphs.records.schema import PROVENANCE, Provenance, envelope, provenance, provenance_of


@dataclass(frozen=True, kw_only=True)
class OneRecord(Provenance):
    """One record saved as a whole document; its tuple fields are saved as lists and read back as tuples."""

    command: ClassVar[str]
    # The keys saying what the record ran on, saved after its own fields.
    RAN_ON: ClassVar[tuple] = ("tf_version", "machine")
    tf_version: str | None = None
    machine: dict = field(default_factory=dict)

    def to_dict(self):
        """The saved document."""
        return {**envelope(self.command), **provenance(self), **self.saved()}

    def saved(self):
        """The document's keys after the envelope and provenance: the record's own fields, then RAN_ON."""
        held = asdict(self)
        names = [k for k in held if k not in (*PROVENANCE, *OneRecord.RAN_ON)] + list(self.RAN_ON)
        return {k: list(held[k]) if isinstance(held[k], tuple) else held[k] for k in names}

    @classmethod
    def required(cls):
        """The keys a saved document must hold: the fields without a default."""
        return [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING]

    @classmethod
    def read(cls, d):
        """The record's fields a saved document holds (unknown keys are ignored)."""
        return known(cls, d, **{f.name: tuple for f in fields(cls) if f.type is tuple})

    @classmethod
    def from_dict(cls, d):
        """Rebuild from a saved document (no TensorFlow needed)."""
        missing = [k for k in cls.required() if k not in d]
        if missing:
            raise ValueError(f"not a complete {cls.command} result (no {', '.join(missing)})")
        return cls(**{**cls.read(d), **provenance_of(d)})
