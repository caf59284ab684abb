"""Files written whole or not at all, and saved documents read back."""

import json
import os
import stat
import tempfile

from tfgraphs.errors import UsageError


def inside(path, folder):
    """True when path is folder or lies inside it, once links are resolved."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def folder_takes_a_file(path):
    """UsageError unless the folder path would be made in (its nearest existing ancestor) accepts a new file."""
    folder = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(folder):
        folder = os.path.dirname(folder)
    # Trying is the only sure test: permission bits do not bind root, and some file systems refuse anyway.
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {folder}: {exc.strerror}") from None


def write_atomic(path, write, mode="w"):
    """Run write(file) on a temporary file beside path, then rename it over path: readers see the old or the new. A
    link is written through (the file it names is replaced, the link stays); one naming no regular file is refused."""
    given, path = path, os.path.realpath(path)
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        raise UsageError(f"cannot write {given}: it names {path}, which is not a regular file (a device, FIFO or "
                         f"socket)")
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tfgraphs-", suffix=os.path.splitext(path)[1], dir=directory)
    try:
        with os.fdopen(fd, mode) as f:
            write(f)
        # mkstemp makes the file private (0600); give it the mode any other new file would get.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        # A full disk or a file that refuses the rename: the old file stays whole, and the fault is one line.
        os.unlink(tmp)
        raise UsageError(f"cannot write {given}: {exc.strerror or exc}") from None
    except BaseException:
        os.unlink(tmp)
        raise


def write_doc(doc, path):
    """Write a JSON document to path atomically."""
    def write(f):
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_atomic(path, write)


# The largest document read: far past any a command writes (a few MB), short of what would fill memory.
MAX_DOC_BYTES = 256 * 2**20


def read_doc(path):
    """The JSON document in the regular file at path, read up to MAX_DOC_BYTES; UsageError in one line otherwise."""
    try:
        # O_NONBLOCK: opening a FIFO to look at it must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DOC_BYTES:
        os.close(fd)
        if stat.S_ISREG(st.st_mode):
            raise UsageError(f"{path} is {st.st_size:,} bytes, larger than {MAX_DOC_BYTES:,}: more than any tfgraphs "
                             f"document")
        raise UsageError(f"{path} is not a regular file (a folder, device, FIFO or socket)")
    with os.fdopen(fd, "rb") as f:
        # The size it has, and a byte more: a file still growing is cut there, and refused.
        data = f.read(st.st_size + 1)
    if len(data) > st.st_size:
        raise UsageError(f"{path} grew while it was read; read it once it is written")
    try:
        return json.loads(data, object_pairs_hook=_unique_keys)
    except MemoryError:
        raise UsageError(f"{path}: ran out of memory reading its {st.st_size:,} bytes of JSON; free some, or raise "
                         f"this process's limit (ulimit -v)") from None
    except RepeatedKey as exc:
        raise UsageError(f"{path} holds the key {exc.args[0]!r} twice in one object; which one is meant is "
                         f"unclear") from None
    except RecursionError:
        raise UsageError(f"{path} is not a tfgraphs document (JSON nested too deeply)") from None
    except ValueError as exc:
        raise UsageError(f"{path} is not JSON ({exc})") from None


class RepeatedKey(ValueError):
    """A JSON object names one key twice: json would keep the last silently."""


def _unique_keys(pairs):
    """A JSON object's pairs as a dict; RepeatedKey naming a key given twice."""
    found = {}
    for key, value in pairs:
        if key in found:
            raise RepeatedKey(key)
        found[key] = value
    return found
