"""Each option's one declaration: its default, its check (type and bounds) and its help. A job's Config declares its
fields with them; the Python API's keywords, defaults and checks and the command line's flags are derived from them.

A check is called as check(keyword, value) and returns the value as a Config holds it, or raises a one-line
UsageError naming the option by its flag (--batch); from Python it is the keyword of the same name (batch=).
"""

import dataclasses
import os
from dataclasses import MISSING, dataclass, replace

from tfgraphs.errors import UsageError
from tfgraphs.spec.numbers import LARGEST, Bounds, flag, read_number

REQUIRED = MISSING   # the default of an option that must be given


@dataclass(frozen=True)
class Option:
    """One option: what it defaults to, how a value is checked, and what --help says of it."""

    default: object
    check: object
    help: str
    shown: str | None = None      # the default as --help words it, when the value alone would not say enough
    note: str = ""                # said after the default in --help
    keyword: str | None = None    # the API keyword and flag, when not the Config field's name
    metavar: str | None = None
    repeat: bool = False          # a flag given once per value (--feed A=1 --feed B=2)
    short: str | None = None      # a one-letter flag beside the long one, e.g. -o
    positional: bool = False      # given on the command line without a flag
    rest: bool = False            # takes every argument after the positional ones, flags included (a script's)

    def field(self, **changes):
        """A dataclass field declared by this option, with changes (default=, help=, ...) for this Config."""
        option = replace(self, **changes)
        # A required option's field defaults to None only so that a Config may extend another: the API and the
        # command line require it.
        default = None if option.default is REQUIRED else option.default
        return dataclasses.field(default=default, metadata={"option": option})


def declared(*sources, without=()):
    """{keyword: Option} of Config classes (their fields' options) and dicts of options, in the order declared; a
    keyword declared twice must be declared alike."""
    found = {}
    for source in sources:
        pairs = (((f.metadata["option"].keyword or f.name, f.metadata["option"])
                  for f in dataclasses.fields(source) if "option" in f.metadata)
                 if dataclasses.is_dataclass(source) else source.items())
        for keyword, option in pairs:
            if keyword in without:
                continue
            if keyword in found and found[keyword] != option:
                raise TypeError(f"{keyword} is declared twice, differently")
            found[keyword] = option
    return found


def config_of(config_type, checked, **more):
    """config_type built from checked keywords (each that names one of its fields' options) and more fields."""
    fields = {f.name: checked[f.metadata["option"].keyword or f.name] for f in dataclasses.fields(config_type)
              if "option" in f.metadata and (f.metadata["option"].keyword or f.name) in checked}
    return config_type(**fields, **more)


@dataclass(frozen=True)
class Whole:
    """A whole number from least to most (a bool or a float is refused, as the flag's text would be)."""

    least: int = 1
    most: int | None = None
    why: str = ""    # why a smaller number cannot work, said when one is given

    def __call__(self, name, value):
        return read_number(name, value, Bounds("whole", self.least, LARGEST if self.most is None else self.most,
                                               self.why))

    def bounds(self):
        """The bounds as --help says them."""
        said = ["0 or more"] if self.least == 0 else [f"at least {self.least}"] if self.least > 1 else []
        return ", ".join(said + ([f"at most {self.most:,}"] if self.most is not None else []))


@dataclass(frozen=True)
class Positive:
    """A finite number greater than 0 and at most most (NaN and infinity are refused too); None too when optional."""

    optional: bool = False
    most: float = float("inf")
    unit: str = ""   # said after most in a refusal and in --help, e.g. " s"

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        return read_number(name, value, Bounds("positive", most=self.most, unit=self.unit))

    def bounds(self):
        """The bound as --help says it, when one is declared."""
        return f"at most {self.most:,g}{self.unit}" if self.most < float("inf") else ""


@dataclass(frozen=True)
class Names:
    """A comma-separated string or an iterable of names, each one of known; order kept, repeats dropped."""

    known: tuple
    what: str
    none: str | None = None   # a word that asks for none of them (an empty tuple)
    optional: bool = False    # None passes: the Config decides what it means

    def __call__(self, name, value):
        if value is None and self.optional:
            return None
        if self.none is not None and (value == self.none or value in ((), [])):
            return ()
        items = value.split(",") if isinstance(value, str) else value
        try:
            given = [str(n).strip() for n in items if str(n).strip()]
        except TypeError:
            raise UsageError(f"{flag(name)} {value!r} is not a list of {self.what}s") from None
        if not given:
            raise UsageError(f"no {self.what} given")
        unknown = [n for n in given if n not in self.known]
        if unknown:
            raise UsageError(f"unknown {self.what} {', '.join(unknown)}; choose from {', '.join(self.known)}")
        return tuple(dict.fromkeys(given))


@dataclass(frozen=True)
class OneOf:
    """One of known; a prefix (such as data=) may stand before it."""

    known: tuple
    prefix: str = ""

    def __call__(self, name, value):
        plain = value[len(self.prefix):] if self.prefix and isinstance(value, str) and value.startswith(
            self.prefix) else value
        if plain not in self.known:
            shown = ", ".join(self.prefix + str(k) for k in self.known)
            raise UsageError(f"{flag(name)} {value!r} is not one of {shown}")
        return plain


def text(name, value):
    """value, when it is a string (a name, a tag, a target)."""
    if not isinstance(value, str):
        raise UsageError(f"{flag(name)} {value!r} is not text")
    return value


def switch(name, value):
    """value, when it is True or False (a flag that is given or not)."""
    if not isinstance(value, bool):
        raise UsageError(f"{flag(name)} {value!r} is not True or False")
    return value


def path(name, value):
    """A str or os.PathLike as a str path, not empty."""
    if value is None or value == "":
        raise UsageError(f"{flag(name)} is needed: give a path")
    try:
        given = os.fspath(value)
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not a path") from None
    if not isinstance(given, str):
        # os accepts bytes paths, but every message and every path joined to this one is a str.
        raise UsageError(f"{flag(name)} {value!r} is bytes; give the path as a str")
    if "\0" in given:
        raise UsageError(f"{flag(name)} {value!r} holds a NUL character, which no path can")
    return given


def optional_path(name, value):
    """None (nothing written), or a path."""
    return None if value is None else path(name, value)


def texts(name, value):
    """A name or an iterable of names, as a tuple of non-empty strings."""
    try:
        items = (value,) if isinstance(value, str) else tuple(value)
    except TypeError:
        items = (None,)
    if not all(isinstance(v, str) and v for v in items):
        raise UsageError(f"{flag(name)} {value!r} is not a name or a list of names")
    return items


def arguments(name, value):
    """A tuple of strings: a program's own arguments, passed on as given."""
    items = (value,) if isinstance(value, str) else value
    try:
        given = tuple(items)
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not a list of arguments") from None
    if not all(isinstance(a, str) for a in given):
        raise UsageError(f"{flag(name)} {value!r} is not a list of strings")
    return given


def batches(name, value):
    """Two or more different batches, each a whole number >= 1, sorted."""
    items = value.split(",") if isinstance(value, str) else value
    try:
        found = sorted({Whole()(name, b) for b in items if not (isinstance(b, str) and not b.strip())})
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not a list of batches") from None
    if len(found) < 2:
        raise UsageError(f"{flag(name)} {value!r} names fewer than two different batches, too few to fit a line")
    return tuple(found)


def byte_size(name, value):
    """Bytes, from a whole number or text with a unit (B, kB, MB, GB, KiB, MiB, GiB); at least 1."""
    return read_number(name, value, Bounds("size", unit=" bytes"))


def feed_shapes(name, value):
    """((input name, (d1, d2, ...)), ...) from {name: dims} or NAME=D1,D2,... texts; every dimension >= 1."""
    try:
        pairs = value.items() if isinstance(value, dict) else [_feed_text(name, t) for t in value]
        return tuple((text(name, n), tuple(Whole()(name, d) for d in dims)) for n, dims in pairs)
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not NAME=D1,D2,... texts or a {{name: dims}} dict") from None


def _feed_text(name, given):
    input_name, _, dims = str(given).partition("=")
    try:
        shape = tuple(Whole()(name, d) for d in dims.split(",")) if dims.strip() else None
    except UsageError:
        shape = None
    if not input_name.strip() or shape is None:
        raise UsageError(f"{flag(name)} {given!r} is not NAME=D1,D2,... with whole dimensions >= 1")
    return input_name.strip(), shape
