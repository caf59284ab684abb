"""Text (tabulate) and PNG (matplotlib) from saved results, one module per command; no TensorFlow here."""

from tfgraphs.render import compare, explain, inspect, pitfalls, shapes, sweep

RENDERERS = {"compare": compare.render, "explain": explain.render, "sweep": sweep.render, "shapes": shapes.render,
             "inspect": inspect.render, "pitfalls": pitfalls.render}


def render(result, fmt="simple"):
    """Any Report or Inspection as text, by the command that made it."""
    return RENDERERS[result.command](result, fmt)
