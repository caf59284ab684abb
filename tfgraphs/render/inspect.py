"""Render an inspection: summary, op types, the largest constants, and what they show (no TensorFlow here)."""

from tabulate import tabulate

from tfgraphs.explain.inspect import sentences
from tfgraphs.render.page import page
from tfgraphs.units import shape_text

SHOWN_OP_TYPES = 20


def render(s, fmt="simple"):
    """The inspection as text: summary, op types, largest constants, and what they show."""
    where = s.format + (f", meta graph 1 of {s.meta_graph['of']} (tags {', '.join(s.meta_graph['tags']) or 'none'})"
                        if s.meta_graph else "")
    summary = [["file", s.path], ["format", where], ["file bytes", f"{s.file_bytes:,}"],
               ["graph bytes", f"{s.graph_bytes:,}"], ["nodes", f"{s.nodes:,}"],
               ["function nodes", f"{s.function_nodes:,}"], ["Const nodes", f"{s.const_nodes:,}"],
               ["const bytes", f"{s.const_bytes:,}"], ["headroom to 2 GiB", f"{s.headroom_bytes:,}"]]
    ops = s.op_types[:SHOWN_OP_TYPES]
    more = len(s.op_types) - len(ops)
    op_table = tabulate([[o["op"], o["nodes"], o["bytes"], o["bytes"] / s.graph_bytes * 100] for o in ops],
                        ["op", "nodes", "bytes", "% of graph"], tablefmt=fmt, intfmt=",", floatfmt=".1f")
    sections = [("Op types", (op_table, f"... and {more} more op types (all of them are in --json)." if more > 0
                              else None))]
    if s.largest_consts:
        body = [[c["name"], c["function"] or "(graph)", c["dtype"], shape_text(c["shape"]), c["bytes"],
                 c["graph_share"] * 100] for c in s.largest_consts]
        sections.append((f"Largest Const nodes ({len(body)} of {s.const_nodes:,})", (
            tabulate(body, ["name", "in", "dtype", "shape", "bytes", "% of graph"], tablefmt=fmt, intfmt=",",
                     floatfmt=".2f", disable_numparse=[3]),
            "in = the graph itself or the function whose body holds the node; bytes = the tensor once expanded "
            "(elements x itemsize); % of graph = the node's share of the serialized GraphDef.")))
    return page(tabulate(summary, tablefmt=fmt, disable_numparse=True), sections, "What this graph shows:",
                sentences(s))
