"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""

from tfgraphs.render import compare, explain, inspect, pitfalls, shapes, sweep, unembed
from tfgraphs.render.page import WIDTH

RENDERERS = {"compare": compare.render, "explain": explain.render, "sweep": sweep.render, "shapes": shapes.render,
             "inspect": inspect.render, "pitfalls": pitfalls.render, "unembed": unembed.render}


def render(result, fmt="simple", width=WIDTH):
    """Any saved result as text, by the command that made it, fitted to width (None: tables left wide)."""
    return RENDERERS[result.command](result, fmt, width)
