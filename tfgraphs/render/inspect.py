"""Render an inspection: summary, op types, the largest constants, and what they show (no TensorFlow here)."""

from tfgraphs.findings.inspect import sentences
from tfgraphs.render.page import WIDTH, Table, page
from tfgraphs.units import fmt_int, shape_text

SHOWN_OP_TYPES = 20


def summary_table(s):
    """What the file is and the graph's totals, one fact a row."""
    where = s.format + (f", meta graph 1 of {s.meta_graph['of']} (tags {', '.join(s.meta_graph['tags']) or 'none'})"
                        if s.meta_graph else "")
    rows = (("file", s.path), ("format", where), ("file bytes", fmt_int(s.file_bytes)),
            ("graph bytes", fmt_int(s.graph_bytes)), ("nodes", fmt_int(s.nodes)),
            ("function nodes", fmt_int(s.function_nodes)), ("Const nodes", fmt_int(s.const_nodes)),
            ("const bytes", fmt_int(s.const_bytes)), ("headroom to 2 GiB", fmt_int(s.headroom_bytes)))
    return Table(("", ""), rows, keys=2, wrap=((1, 76),))


def render(s, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The inspection as text: summary, op types, largest constants, and what they show."""
    ops = s.op_types[:SHOWN_OP_TYPES]
    more = len(s.op_types) - len(ops)
    op_table = Table(("op", "nodes", "bytes", "% of graph"),
                     tuple((o["op"], fmt_int(o["nodes"]), fmt_int(o["bytes"]), f"{o['bytes'] / s.graph_bytes * 100:.1f}")
                           for o in ops), wrap=((0, 40),))
    sections = [("Op types", op_table, f"... and {more} more op types (all of them are in --json)." if more > 0
                 else None)]
    if s.largest_consts:
        rows = tuple((c["name"], c["function"] or "(graph)", c["dtype"], shape_text(c["shape"]), fmt_int(c["bytes"]),
                      f"{c['graph_share'] * 100:.2f}") for c in s.largest_consts)
        sections.append((f"Largest Const nodes ({len(rows)} of {s.const_nodes:,})",
                         Table(("name", "in", "dtype", "shape", "bytes", "% of graph"), rows, keys=4,
                               wrap=((0, 32), (1, 20), (3, 16))),
                         "in = the graph itself or the function whose body holds the node; bytes = the tensor once "
                         "expanded (elements x itemsize); % of graph = the node's share of the serialized GraphDef."))
    return page(summary_table(s), sections, "What this graph shows:", sentences(s), (), fmt, width, verbose=verbose)
