"""A saved document read back as the Report of the command that wrote it, and any result rendered by its command."""

import os

from tfgraphs.api.commands import COMMANDS
from tfgraphs.api.report import Report, rendered
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc
from tfgraphs.records.results import load
from tfgraphs.render.page import WIDTH
from tfgraphs.spec.options import path as checked_path


def render(result, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """Any result as text, by the command that made it (see report.rendered)."""
    return rendered(result, COMMANDS[result.command], fmt, width, verbose, figure)


def report(path):
    """The Report saved at path by --json or Report.to_json, ready to print, show or plot again."""
    if not isinstance(path, (str, os.PathLike)):
        # An int would be opened as a file descriptor, and closed.
        raise UsageError(f"report() takes the path of a saved document (a str or os.PathLike), not {type(path).__name__}")
    path = checked_path("path", path)
    try:
        result = load(read_doc(path))
        found = Report(result, COMMANDS[result.command])
        found.text()   # a document missing what its text needs is refused now, not when it is printed
        return found
    except UsageError:
        raise
    except KeyError as exc:
        raise UsageError(f"{path} is not a complete tfgraphs results file (no {exc} in it)") from None
    except ValueError as exc:
        raise UsageError(f"{path}: {_first_line(exc)}") from None
    except (TypeError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        # A field of the wrong type or range, wherever it is read: one line naming the file, never a traceback.
        raise UsageError(f"{path} is not a valid tfgraphs results file: {_first_line(exc)}") from None


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return (text[0][:200] if text else type(exc).__name__)
