"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""

from tfgraphs.render import compare, explain, inspect, pitfalls, shapes, sweep, unembed
from tfgraphs.render.page import WIDTH

RENDERERS = {"compare": compare.render, "explain": explain.render, "sweep": sweep.render, "shapes": shapes.render,
             "inspect": inspect.render, "pitfalls": pitfalls.render, "unembed": unembed.render}
# What each command's figure shows, as the answer block names it.
FIGURES = {"compare": "the time to the first result per variant, by phase",
           "explain": "where the first run went, per preset",
           "sweep": "graph bytes and run time against batch",
           "shapes": "the time per call against input length",
           "pitfalls": "each lesson's key times"}


def figure_line(command):
    """The answer's last line in text: where the command's figure is drawn, or None when it has none."""
    what = FIGURES.get(command)
    return f"Figure: --plot PATH (Report.plot() in Python) draws {what}." if what else None


def render(result, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """Any saved result as text, by the command that made it, fitted to width (None: tables left wide); verbose
    keeps every table and finding; figure is an <img> for HTML (text names --plot)."""
    if fmt != "html" and figure is None:
        figure = figure_line(result.command)
    return RENDERERS[result.command](result, fmt, width, verbose=verbose, figure=figure)
