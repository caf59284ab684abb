"""The checks every option goes through, from Python or the command line: bad input raises one-line UsageErrors.

Messages name an option by its command-line flag (--batch); from Python it is the keyword of the same name (batch=).
"""

import math
import numbers
import os
import re
import stat

from tfgraphs.errors import UsageError
from tfgraphs.fileio import folder_takes_a_file, inside

_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]i?b|b)?\s*", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def flag(name):
    """batch_size -> --batch-size: how messages name an option."""
    return "--" + name.replace("_", "-")


# The most a count may ask for: past these a run would take days or its samples alone fill memory.
MOST = {"runs": 1_000_000, "trials": 1_000, "steps": 100_000, "count": 100_000, "passes": 1_000, "top": 100_000,
        "int_high": 2**63 - 1}   # int_high: the exclusive bound of an integer feed, drawn as int64


def whole(name, value, least=1):
    """value as an int of at least `least`, and at most MOST[name] for a count (a bool or a float is refused, as
    the flag's text would be)."""
    if isinstance(value, str) and value.strip().lstrip("+-").isdecimal():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{flag(name)} {value!r} is not a whole number")
    if value < least:
        raise UsageError(f"{flag(name)} {value} must be {'0 or more' if least == 0 else f'at least {least}'}")
    if value > MOST.get(name, value):
        raise UsageError(f"{flag(name)} {value} must be at most {MOST[name]:,}")
    return int(value)


def positive(name, value):
    """value as a finite float greater than 0 (NaN and infinity are refused too)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise UsageError(f"{flag(name)} {value!r} is not a number") from None
    if isinstance(value, bool) or not number > 0:
        raise UsageError(f"{flag(name)} {value!r} must be greater than 0")
    if math.isinf(number):
        raise UsageError(f"{flag(name)} {value!r} must be a finite number")
    return number


def optional_positive(name, value):
    """None, or value as a float greater than 0."""
    return None if value is None else positive(name, value)


def names(name, value, known, what):
    """A comma-separated string or an iterable of names, each one of known; order kept, repeats dropped."""
    items = value.split(",") if isinstance(value, str) else value
    try:
        given = [str(n).strip() for n in items if str(n).strip()]
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not a list of {what}s") from None
    if not given:
        raise UsageError(f"no {what} given")
    unknown = [n for n in given if n not in known]
    if unknown:
        raise UsageError(f"unknown {what} {', '.join(unknown)}; choose from {', '.join(known)}")
    return tuple(dict.fromkeys(given))


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


def path_of(name, value):
    """A str or os.PathLike as a str path."""
    try:
        return os.fspath(value)
    except TypeError:
        raise UsageError(f"{flag(name)} {value!r} is not a path") from None


def one_of(name, value, known):
    """value, when it is one of known."""
    if value not in known:
        raise UsageError(f"{flag(name)} {value!r} is not one of {', '.join(map(str, known))}")
    return value


def batch_list(value):
    """Two or more different batches, each a whole number >= 1, sorted."""
    items = value.split(",") if isinstance(value, str) else value
    try:
        found = sorted({whole("batches", b) for b in items if str(b).strip()})
    except TypeError:
        raise UsageError(f"--batches {value!r} is not a list of batches") from None
    if len(found) < 2:
        raise UsageError(f"--batches {value!r} names fewer than two different batches, too few to fit a line")
    return tuple(found)


def byte_size(name, value):
    """Bytes, from a whole number or text with a unit (B, kB, MB, GB, KiB, MiB, GiB); at least 1."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return whole(name, value)
    match = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if not match:
        raise UsageError(f"{flag(name)} {value!r} is not a size (try 1048576, 512KiB or 2MB)")
    size = int(float(match.group(1)) * _UNITS[(match.group(2) or "b").lower()])
    if size < 1:
        raise UsageError(f"{flag(name)} {value!r} must be at least 1 byte")
    return size


def feed_shapes(value):
    """((input name, (d1, d2, ...)), ...) from {name: dims} or NAME=D1,D2,... texts; every dimension >= 1."""
    try:
        pairs = value.items() if isinstance(value, dict) else [_feed_text(t) for t in value]
        return tuple((text("feed", name), tuple(whole("feed", d) for d in dims)) for name, dims in pairs)
    except TypeError:
        raise UsageError(f"--feed {value!r} is not NAME=D1,D2,... texts or a {{name: dims}} dict") from None


def _feed_text(text):
    name, _, dims = str(text).partition("=")
    try:
        shape = tuple(int(d) for d in dims.split(",")) if dims.strip() else None
    except ValueError:
        shape = None
    if not name.strip() or shape is None or any(d < 1 for d in shape):
        raise UsageError(f"--feed {text!r} is not NAME=D1,D2,... with whole dimensions >= 1")
    return name.strip(), shape


def table_format(fmt):
    """fmt, when tabulate knows it."""
    from tabulate import tabulate_formats

    if fmt not in tabulate_formats:
        raise UsageError(f"unknown table format {fmt!r}; choose from {', '.join(tabulate_formats)}")
    return fmt


def writable(inputs=(), **paths):
    """Refuse, before any work, an output path (by option name) that is one of the command's inputs or another
    output, that exists as anything but a regular file, or whose folder refuses a file."""
    given = [(name, path_of(name, value)) for name, value in paths.items() if value]
    sources = [path_of("path", p) for p in inputs if p]
    for i, (name, path) in enumerate(given):
        for source in sources:
            if _same_file(path, source):
                raise UsageError(f"{flag(name)} {path} is the input {source}; the input is never overwritten")
            if os.path.isdir(source) and inside(path, source):
                raise UsageError(f"{flag(name)} {path} is inside the input {source}; the input is never modified")
        for other, earlier in given[:i]:
            if _same_file(path, earlier):
                raise UsageError(f"{flag(name)} and {flag(other)} are the same file {path}; give each its own")
        _regular_or_missing(path)
        folder_takes_a_file(path)


def _same_file(a, b):
    """True when two paths name one file: the same path once links are resolved, or the same inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _regular_or_missing(path):
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return   # a new file: whether its folder takes one is asked next
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"{path} is a directory; give a file name")
    if not stat.S_ISREG(mode):
        # The file would be renamed over a device, FIFO or socket, replacing it.
        raise UsageError(f"{path} is not a regular file (a device, FIFO or socket); give a file name")
    # Opened for appending and closed, nothing written: an immutable file refuses now, not after the run.
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def output_dir(name, folder):
    """Refuse an output folder that exists as something other than a folder, or cannot be made."""
    if not folder:
        return
    where = path_of(name, folder)
    if os.path.exists(where) and not os.path.isdir(where):
        raise UsageError(f"{where} exists and is not a folder")
    if not os.path.exists(where):
        writable(**{name: os.path.join(where, "probe")})


def plot_path(path):
    """Refuse a --plot path when matplotlib is not there to draw it, or the path cannot be written."""
    if path:
        from tfgraphs.render import plots
        plots.require()
        writable(plot=path)


def seed_network(batch, dtype, runs, trials, seed):
    """The options of every command that measures the seed network, checked: Config fields."""
    from tfgraphs.spec.network import DTYPES

    return {"batch": whole("batch", batch), "dtype": one_of("dtype", dtype, DTYPES), "runs": whole("runs", runs),
            "trials": whole("trials", trials), "seed": whole("seed", seed, least=0)}
