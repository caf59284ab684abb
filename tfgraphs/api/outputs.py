"""The checks of where a command writes: no output over an input or another output, none into what refuses a file.

Each option's value was checked by its declaration first (spec.options); these ask the file system, before any work.
"""

import os
import stat

from tfgraphs.errors import UsageError
from tfgraphs.fileio import folder_takes_a_file, inside
from tfgraphs.spec.options import flag
from tfgraphs.spec.options import path as checked_path


def table_format(fmt):
    """fmt, when tabulate knows it."""
    from tabulate import tabulate_formats

    if fmt not in tabulate_formats:
        raise UsageError(f"unknown table format {fmt!r}; choose from {', '.join(tabulate_formats)}")
    return fmt


def writable(inputs=(), **paths):
    """Refuse, before any work, an output path (by option name) that is one of the command's inputs or another
    output, that exists as anything but a regular file, or whose folder refuses a file."""
    given = [(name, checked_path(name, value)) for name, value in paths.items() if value]
    sources = [checked_path("path", p) for p in inputs if p]
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
    where = checked_path(name, folder)
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
