"""Each option's one declaration: its default, its check (type and bounds) and its help; the options several commands
share, and the session presets and sample sizes their choices and defaults come from. A command's Config declares its
fields with them (Option.field(), changing only its own default); the Python API's keywords, defaults and checks and
the command line's flags are derived from them.

A check is called as check(keyword, value) and returns the value as a Config holds it, or raises a one-line
UsageError naming the option by its flag (--batch); from Python it is the keyword of the same name (batch=). Every
number a user gives, as command-line text or a Python value, is read by read_number, in ASCII digits 0-9 only: digits
of other scripts (Arabic-Indic '٣', full-width '５', superscript '²') are refused rather than read, so what a person
sees typed is what runs.
"""

import dataclasses
import math
import numbers
import os
import re
from dataclasses import MISSING, dataclass, replace
from fractions import Fraction

from tfgraphs.errors import UsageError

# Numbers as a user gives them.
LARGEST = 2**63 - 1   # numpy and TensorFlow hold every count and size tfgraphs takes in int64
_SHOWN = 24           # digits a message quotes of a longer number
# Digits read exactly: any more (past leading zeros) is past LARGEST, so its value is never needed, and int() of
# thousands of digits is slow or refused outright.
_DIGITS = 40

# Matched against stripped text, and written so that no part can match what its neighbour does: a long near-miss
# ("0000...x") fails in one pass rather than by backtracking over every split of it.
_WHOLE = re.compile(r"([+-]?)([0-9]+)", re.ASCII)
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                   re.ASCII | re.IGNORECASE)
_SIZE = re.compile(r"([0-9]+)(?:\.([0-9]+))?\s*([kmgt]i?b|b)?", re.ASCII | re.IGNORECASE)
UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
         "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}

# What each kind of number is called when text is not one.
WHAT = {"whole": "a whole number", "positive": "a number", "size": "a size (try 1048576, 512KiB or 2MB)"}


def flag(name):
    """batch_size -> --batch-size: how messages name an option."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class Bounds:
    """What a number may be: its kind (whole, positive or size), from least to most, and why not less."""

    kind: str = "whole"
    least: int = 1        # for a positive number: more than 0, whatever this says
    most: float = LARGEST
    why: str = ""         # said when a number below least is given
    unit: str = ""        # said after most, e.g. " s"


def read_number(name, value, bounds=Bounds()):
    """value as an int (whole, size) or a float (positive) within bounds; else a one-line UsageError naming the flag."""
    if bounds.kind == "positive":
        return _positive(name, value, bounds)
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Integral)):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not {WHAT[bounds.kind]}")
    number, shown = (int(value), None) if isinstance(value, numbers.Integral) else _text_number(name, value, bounds.kind)
    if shown is None and abs(number) >= 10**_DIGITS:
        shown = _quoted(number)
    if number < bounds.least:
        raise UsageError(f"{flag(name)} {_shown_number(number, shown, value, bounds)} must be {_at_least(bounds)}"
                         + (f": {bounds.why}" if bounds.why else ""))
    if number > bounds.most:
        raise UsageError(f"{flag(name)} {_shown_number(number, shown, value, bounds)} must be at most "
                         f"{_most(bounds)}")
    return number


def _text_number(name, given, kind):
    """(the number the text given says, how a message shows it when past _DIGITS digits, else None); UsageError if
    none."""
    found = (_WHOLE if kind == "whole" else _SIZE).fullmatch(given.strip())
    if not found:
        raise UsageError(f"{flag(name)} {_quoted(given)} is not {WHAT[kind]}")
    digits = (found.group(2) if kind == "whole" else found.group(1)).lstrip("0") or "0"
    sign = -1 if kind == "whole" and found.group(1) == "-" else 1
    if len(digits) > _DIGITS:
        # Past every bound: a stand-in of the same sign compares as the number would.
        return sign * 10**_DIGITS, f"{'-' if sign < 0 else ''}{digits[:_SHOWN]}... ({len(digits):,} digits)"
    if kind == "whole":
        return sign * int(digits), None
    fraction = (found.group(2) or "")[:_DIGITS]
    exact = Fraction(int(digits + fraction), 10 ** len(fraction)) * UNITS[(found.group(3) or "b").lower()]
    return math.floor(exact), None


def _positive(name, value, bounds):
    """A finite float greater than 0 and at most bounds.most."""
    is_text = isinstance(value, str)
    if isinstance(value, bool) or not (is_text or isinstance(value, numbers.Real)) or (
            is_text and not _REAL.fullmatch(value.strip())):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not a number")
    try:
        number = float(value.strip() if is_text else value)
    except OverflowError:   # an int past any float
        number = math.inf if value > 0 else -math.inf
    if math.isnan(number):
        raise UsageError(f"{flag(name)} {_quoted(value)} is not a number")
    if not number > 0:
        raise UsageError(f"{flag(name)} {_quoted(value)} must be greater than 0")
    if math.isinf(number):
        raise UsageError(f"{flag(name)} {_quoted(value)} must be a finite number")
    if number > bounds.most:
        raise UsageError(f"{flag(name)} {_quoted(value)} must be at most {_most(bounds)}")
    return number


def _most(bounds):
    """bounds.most as a refusal says it: 86,400 s, not 86,400.0 s."""
    most = bounds.most
    return f"{int(most) if isinstance(most, int) or most.is_integer() else most:,}{bounds.unit}"


def _at_least(bounds):
    """bounds.least as a refusal says it."""
    if bounds.kind == "size":
        return f"at least {bounds.least:,} byte" + ("s" if bounds.least != 1 else "")
    return "0 or more" if bounds.least == 0 else f"at least {bounds.least:,}"


def _shown_number(number, shown, value, bounds):
    """How a refusal shows the number: as read for a whole number (5 from ' 5'), as given for a size."""
    if shown is not None:
        return shown
    return str(number) if bounds.kind == "whole" or not isinstance(value, str) else _quoted(value)


def _quoted(value):
    """repr(value), one line, cut to a length a message can hold (an int too long to print, by its size)."""
    if isinstance(value, numbers.Integral) and abs(value) >= 10**_DIGITS:
        return f"{'-' if value < 0 else ''}a whole number of {abs(int(value)).bit_length():,} bits"
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# Options, and the checks of their values.
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
        parts = ["0 or more"] if self.least == 0 else [f"at least {self.least}"] if self.least > 1 else []
        return ", ".join(parts + ([f"at most {self.most:,}"] if self.most is not None else []))


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
        each = Whole(most=MOST_EXAMPLES)
        found = sorted({each(name, b) for b in items if not (isinstance(b, str) and not b.strip())})
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


# The rank tests the judge uses, and the fewest samples at which each can tell two conditions apart: the defaults of
# --trials and --count are set from them.
ALPHA = 0.05           # two-sided level of every test, and 1 - the confidence of every interval
RANK_SUM = "Mann-Whitney U"
SIGNED_RANK = "Wilcoxon signed-rank"
# The fewest samples at which each test can reject at ALPHA: 4 a side (smallest two-sided p 2/70), 6 pairs (2/64).
FEWEST = {RANK_SUM: 4, SIGNED_RANK: 6}
# One value is placed among N others by a rank test only from N = 40: its smallest two-sided p is 2/(N+1).
ONE_AGAINST = math.floor(2 / ALPHA)


# Session presets that switch graph optimizers off, to see what the first run pays for.
@dataclass(frozen=True)
class Preset:
    """A session config by what it switches off."""

    name: str
    description: str
    grappler: bool = True    # Grappler's meta optimizer runs
    folding: bool = True     # Grappler's and the classic optimizer's constant folding run (off: L0, so CSE off too)


PRESETS = {
    p.name: p
    for p in (
        Preset("default", "TensorFlow's default session config"),
        Preset("no-grappler", "Grappler off (rewrite_options.disable_meta_optimizer)", grappler=False),
        Preset("no-folding", "Grappler constant folding off and the classic optimizer at OptimizerOptions.L0, "
               "which turns off its constant folding and its common-subexpression elimination (CSE)", folding=False),
        Preset("bare", "both: Grappler off, and the classic optimizer at L0 (no constant folding, no CSE)",
               grappler=False, folding=False),
    )
}


# The most examples a batch holds: far past any machine's memory (10^12 float64 examples of 8 KiB are 8 PB), and
# small enough that every byte count made from it (X, the activations, the peak estimate) fits int64.
MOST_EXAMPLES = 10**12

# How many runs and fresh workers a measuring command takes, and which presets.
RUNS = Option(10, Whole(most=1_000_000), "timed runs after the first")
TRIALS = Option(1, Whole(most=1_000), "fresh workers per variant, in rotating order; the report shows the median")
FULL_TRIALS = Option(1, Whole(most=1_000), "how many of each variant's --trials workers measure every phase (later "
                     "runs, memory, sizes, TensorFlow's reports); the others measure up to the first run only")
SEED = Option(0, Whole(least=0), "seed of the data generator")
CHOSEN_PRESETS = Option(tuple(PRESETS), Names(tuple(PRESETS), "preset"), "comma-separated session presets: "
                        + "; ".join(f"{k} = {p.description}" for k, p in PRESETS.items()), shown="all")


def later_runs_option(config):
    """The option whose workers run later runs: --full-trials where only the first trials run them, else --trials."""
    if getattr(config, "later_every_trial", False) or config.full_trials >= config.trials:
        return "--trials"
    return "--full-trials"


# The longest any wait may be: a timeout past a day is a slip of the keyboard, and a huge one overflows the clock.
DAY_S = 86_400.0
# Seconds a worker with a remote session may take unless --timeout says otherwise: a server that accepts the
# connection and never answers would hang a remote run.
REMOTE_TIMEOUT_S = 600.0

# How a measuring run goes, and where its results are written (checked again, as paths, before any work).
FORCE = Option(False, switch, "run even when the memory estimate exceeds what is available")
TIMEOUT = Option(None, Positive(optional=True, most=DAY_S, unit=" s"), "kill a worker after S seconds (it becomes a "
                 "failed row)", shown=f"none, and {REMOTE_TIMEOUT_S:g} with a remote --target", metavar="S")
QUIET = Option(False, switch, "no progress lines on stderr")
FRESH_WORKERS = Option(False, switch, "start every worker as a fresh interpreter that imports TensorFlow itself, not "
                       "forked from one that imported it once (Linux forks; elsewhere every worker starts fresh)")
JSON = Option(None, optional_path, "also write every result to PATH as JSON (atomically)", metavar="PATH")
CSV = Option(None, optional_path, "also write one flat row per {lines} to PATH as CSV, times in s and sizes in bytes",
             metavar="PATH")
PLOT = Option(None, optional_path, "also draw the figure ({figure}) to PATH.png (needs matplotlib: pip install -e "
              "'.[viz]')", metavar="PATH.png")
OUTPUT = Option(None, optional_path, "write the report to FILE (atomically) instead of stdout, and no progress "
                "lines: stdout and stderr are left to the script", metavar="FILE")
RUNNING = {"force": FORCE, "timeout": TIMEOUT, "fresh_workers": FRESH_WORKERS, "quiet": QUIET, "json": JSON, "csv": CSV,
           "plot": PLOT, "output": OUTPUT}


def running(*names):
    """The running options by name, in RUNNING's order."""
    return {name: option for name, option in RUNNING.items() if name in names}


def running_values(options):
    """The values of RUNNING's options among a command's checked options: how it runs and what it writes."""
    return {name: value for name, value in options.items() if name in RUNNING}
