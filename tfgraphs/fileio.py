"""Files written whole or not at all, and saved documents read back."""

import json
import os
import tempfile

from tfgraphs.errors import UsageError


def write_atomic(path, write, mode="w"):
    """Run write(file) on a temporary file beside path, then rename it over path: readers see the old or the new."""
    directory = os.path.dirname(os.path.abspath(path))
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
    except BaseException:
        os.unlink(tmp)
        raise


def write_doc(doc, path):
    """Write a JSON document to path atomically."""
    def write(f):
        json.dump(doc, f, indent=1)
        f.write("\n")
    write_atomic(path, write)


def read_doc(path):
    """The JSON document at path; UsageError when it cannot be read or is not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except ValueError as exc:
        raise UsageError(f"{path} is not JSON ({exc})") from None
