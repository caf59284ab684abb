"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""

from tfgraphs.render import compare, explain, inspect, pitfalls, shapes, sweep, unembed
from tfgraphs.render.page import WIDTH

RENDERERS = {"compare": compare.render, "explain": explain.render, "sweep": sweep.render, "shapes": shapes.render,
             "inspect": inspect.render, "pitfalls": pitfalls.render, "unembed": unembed.render}
# What each command's figure shows, as the answer block names it.
FIGURES = {"compare": "time to the first result, by phase",
           "explain": "where the first run went",
           "sweep": "graph bytes and run time against batch",
           "shapes": "time per call against input length",
           "pitfalls": "the graph-growth steps (or the executor-cache runs)"}


def figure_line(command):
    """The answer's last line in text: where the command's figure is drawn, or None when it has none."""
    what = FIGURES.get(command)
    return f"Figure: --plot PATH (in Python, Report.plot()): {what}." if what else None


def render(result, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """Any saved result as text, by the command that made it, fitted to width (None: tables left wide); verbose
    keeps every table and finding; figure is an <img> for HTML (text names --plot)."""
    if fmt != "html" and figure is None:
        figure = figure_line(result.command)
    return RENDERERS[result.command](result, fmt, width, verbose=verbose, figure=figure)
