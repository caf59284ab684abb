"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""

from importlib import import_module

from tfgraphs.render.page import WIDTH
from tfgraphs.spec.commands import COMMANDS, documented

RENDERED = tuple(c.name for c in documented())   # each has tfgraphs/render/NAME.py, imported when it renders


def renderer(command):
    """The render function of a command's results, from its own module."""
    return import_module(f"tfgraphs.render.{command}").render


def figure_line(command):
    """The answer's last line in text: where the command's figure is drawn, or None when it has none."""
    what = COMMANDS[command].figure
    return f"Figure: --plot PATH (in Python, Report.plot()): {what}." if what else None


def render(result, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """Any saved result as text, by the command that made it, fitted to width (None: tables left wide); verbose
    keeps every table and finding; figure is an <img> for HTML (text names --plot)."""
    if fmt != "html" and figure is None:
        figure = figure_line(result.command)
    return renderer(result.command)(result, fmt, width, verbose=verbose, figure=figure)
