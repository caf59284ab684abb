"""The header of an explain report on a user's graph: which file, what was fed and fetched (no TensorFlow here)."""

from tfgraphs.render.page import machine_line
from tfgraphs.units import shape_text


def graph_header(report):
    """The graph, its feeds and fetches, the runs, and the machine, a line each."""
    c = report.config
    trials = c.trials
    where = c.format + (f", tag {c.tag}" if c.tag else "") + (f", signature {c.signature}" if c.signature else "")
    feeds = ", ".join(f"{i['key']} {i['dtype']} {shape_text(i['shape'])}" for i in c.inputs) or "none"
    fetches = ", ".join(o["key"] for o in c.outputs)
    return (f"explain --graph {c.graph} ({where})\nfeeds {feeds}; fetches {fetches}\n"
            f"{c.runs} later runs x {trials} trial{'s' if trials != 1 else ''}, seed {c.seed}, "
            f"integers in [0, {c.int_high})\n{machine_line(report)}")
