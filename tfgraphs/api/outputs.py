"""The one check of where a command writes: no output over an input, another output or a file another output
writes, none into what refuses a file.

Each option's value was checked by its declaration first (spec.options); this asks the file system, before any work.
"""

import os
import stat
from dataclasses import dataclass

from tfgraphs.errors import UsageError
from tfgraphs.fileio import folder_takes_a_file, inside
from tfgraphs.spec.options import flag
from tfgraphs.spec.options import path as checked_path

INPUTS = ("path", "graph", "script")   # the options that name a file a command reads
FILES = ("json", "csv", "plot", "output")   # the outputs a measuring command may write


@dataclass(frozen=True)
class Output:
    """A path a command writes, and how: a file, a folder it writes files into, or a folder written whole."""

    option: str                 # how messages name it: --json, -o
    path: str
    kind: str = "file"          # "file", "folder" (its files are listed apart) or "whole" (nothing else inside)
    given: str | None = None    # the option's folder, when path is a file or folder written inside it

    def named(self):
        """How the one line names this output."""
        return f"{self.option} {self.path}" if self.given is None else f"{self.path} ({self.role()})"

    def role(self):
        """What a path written inside an option's folder is to that option."""
        return f"{'a file' if self.kind == 'file' else 'a folder'} {self.option} {self.given} writes"


def table_format(fmt):
    """fmt, when tabulate knows it."""
    from tabulate import tabulate_formats

    if fmt not in tabulate_formats:
        raise UsageError(f"unknown table format {fmt!r}; choose from {', '.join(tabulate_formats)}")
    return fmt


def writes_into(option, folder, files=(), wholes=()):
    """The Outputs of an option naming a folder: the folder, each file it will write there, and each folder in it
    it will write whole."""
    where = checked_path(option, folder)
    return ([Output(flag(option), where, "folder")] + [Output(flag(option), f, given=where) for f in files]
            + [Output(flag(option), w, "whole", given=where) for w in wholes])


def command_outputs(options, more=()):
    """Refuse, before any work, what a command's checked options would write (json, csv, plot and more, a list
    of Outputs) over its inputs or each other; and a plot without matplotlib to draw it."""
    if options.get("plot"):
        from tfgraphs.render import plots
        plots.require()
    inputs = [options[name] for name in INPUTS if options.get(name)]
    refuse([p for given in inputs for p in (given if isinstance(given, (list, tuple)) else [given])],
           [Output(flag(name), checked_path(name, options[name])) for name in FILES if options.get(name)]
           + list(more))


def writable(inputs=(), **paths):
    """Refuse output files (by option name) over the inputs or each other, or that cannot be written."""
    refuse(inputs, [Output(flag(name), checked_path(name, value)) for name, value in paths.items() if value])


def refuse(inputs, outputs):
    """UsageError, in one line naming the two, when an output is an input or lies inside one, holds an input,
    or collides with another output; then when any output cannot be written there."""
    sources = [checked_path("path", p) for p in inputs if p]
    for i, out in enumerate(outputs):
        for source in sources:
            _over_input(out, source)
        for earlier in outputs[:i]:
            clash = _collision(earlier, out)
            if clash:
                raise UsageError(f"{clash}; give each its own")
    for out in outputs:
        _usable(out)


def _over_input(out, source):
    """UsageError when out would replace the input source, change what lies in it, or be written around it."""
    if _same_file(out.path, source):
        raise UsageError(f"{out.named()} is the input {source}; the input is never overwritten")
    if os.path.isdir(source) and inside(out.path, source):
        raise UsageError(f"{out.named()} is inside the input {source}; the input is never modified")
    if out.kind == "whole" and inside(source, out.path):
        raise UsageError(f"{out.named()} holds the input {source}; the input is never overwritten")


def _collision(a, b):
    """Why outputs a and b cannot both be written, or None."""
    if a.kind == b.kind == "folder" or (a.given is not None and a.given == b.given and a.option == b.option):
        return None   # two options may write into one folder; one option's files are named apart
    if _same_file(a.path, b.path):
        if a.given is None and b.given is None:
            return f"{b.option} and {a.option} are the same {'file' if a.kind == b.kind == 'file' else 'path'} {b.path}"
        if a.given is None or b.given is None:
            mine, theirs = (a, b) if a.given is None else (b, a)
            return f"{mine.named()} is {theirs.role()}"
        return f"{b.path} is {b.role()} and {a.role()}"
    for outer, inner in ((a, b), (b, a)):
        if outer.kind == "whole" and inside(inner.path, outer.path):
            return f"{inner.named()} is inside {outer.named()}, which is written whole"
    return None


def _same_file(a, b):
    """True when two paths name one file: the same path once links are resolved, or the same inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _usable(out):
    """UsageError unless out can be written where it is: a file over a regular file or nothing, a folder over a
    folder or nothing, and its nearest folder taking a new file."""
    if out.kind == "file":
        _regular_or_missing(out.path)
        folder_takes_a_file(out.path)
    elif os.path.exists(out.path) and not os.path.isdir(out.path):
        raise UsageError(f"{out.path} exists and is not a folder")
    elif out.kind == "folder" and not os.path.exists(out.path):
        folder_takes_a_file(os.path.join(out.path, "probe"))


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
