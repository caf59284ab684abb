"""What a GraphDef holds: size, op types, the largest constants and the headroom to 2 GiB (nothing is run)."""

import hashlib
from collections import Counter, defaultdict
from dataclasses import MISSING, asdict, dataclass, fields

from tabulate import tabulate

from tfgraphs import results
from tfgraphs.limits import GRAPHDEF_LIMIT
from tfgraphs.units import fmt_bytes

SHOWN_OP_TYPES = 20
REPEAT_MIN_BYTES = 1024   # smaller tensors repeat legitimately (shapes, axes, scalars)


@dataclass(frozen=True)
class Inspection:
    """The sizes and contents of one GraphDef, as numbers."""

    path: str
    format: str
    file_bytes: int
    graph_bytes: int            # the binary GraphDef's size, the one the 2 GiB limit applies to
    nodes: int
    function_nodes: int         # nodes inside the function library
    const_nodes: int
    const_bytes: int            # bytes of all Const tensors once expanded (elements x itemsize)
    const_node_bytes: int       # what those Const nodes take in the serialized graph
    headroom_bytes: int         # bytes the graph could still grow before TensorFlow refuses it
    op_types: tuple             # ({"op", "nodes", "bytes"}, ...), most nodes first
    largest_consts: tuple       # ({"name", "function", "dtype", "shape", "bytes", "node_bytes", "graph_share"}, ...)
    repeats: tuple = ()         # ({"bytes", "copies", "nodes", "in_functions"}, ...): identical tensors >= 1 KiB
    elided_consts: int | None = None   # Const nodes listing fewer values than their shape holds (None: not counted)
    meta_graph: dict | None = None
    tf_version: str | None = None

    def to_dict(self):
        d = asdict(self)
        d["op_types"], d["largest_consts"], d["repeats"] = map(list, (self.op_types, self.largest_consts,
                                                                      self.repeats))
        return {"schema": results.SCHEMA, "tool": results.TOOL, "command": "inspect", **d}

    @classmethod
    def from_dict(cls, d):
        """Rebuild from a saved --json document (no TensorFlow needed)."""
        names = {f.name for f in fields(cls)}
        missing = [f.name for f in fields(cls) if f.name not in d and f.default is MISSING]
        if missing:
            raise ValueError(f"not a complete inspect result (no {', '.join(missing)})")
        d = {k: v for k, v in d.items() if k in names}
        for key in ("op_types", "largest_consts", "repeats"):
            d[key] = tuple(d.get(key) or ())
        return cls(**d)


def _where(function, name):
    return name if function is None else f"{function}/{name}"


def _repeats(consts):
    """Groups of Const nodes of at least REPEAT_MIN_BYTES holding byte-identical tensors, largest first."""
    candidates = defaultdict(list)
    for function, node, size in consts:
        if size >= REPEAT_MIN_BYTES:
            t = node.attr["value"].tensor
            candidates[(t.dtype, tuple(d.size for d in t.tensor_shape.dim), size)].append((function, node))
    groups = []
    for (_, _, size), members in candidates.items():
        if len(members) < 2:
            continue
        same = defaultdict(list)
        for function, node in members:
            digest = hashlib.sha256(node.attr["value"].tensor.SerializeToString(deterministic=True)).digest()
            same[digest].append((function, node.name))
        groups += [{"bytes": size, "copies": len(found), "nodes": [_where(f, n) for f, n in found],
                    "in_functions": sum(f is not None for f, _ in found)} for found in same.values() if len(found) > 1]
    return tuple(sorted(groups, key=lambda g: -g["bytes"] * (g["copies"] - 1)))


def summarize(graph_def, source, top=10):
    """An Inspection of graph_def: computed from the protobuf alone, never imported into a graph or run."""
    import tensorflow as tf
    from tfgraphs import graphdefs

    graph_bytes = graph_def.ByteSize()
    located = list(graphdefs.located_nodes(graph_def))
    nodes = [n for _, n in located]
    counts, sizes = Counter(), Counter()
    for n in nodes:
        counts[n.op] += 1
        sizes[n.op] += n.ByteSize()
    consts = [(function, n, graphdefs.tensor_bytes(n.attr["value"].tensor))
              for function, n in located if n.op == "Const"]
    consts.sort(key=lambda c: (-c[2], c[0] is not None, c[1].name))
    largest = []
    for function, node, size in consts[:top]:
        t = node.attr["value"].tensor
        largest.append({"name": node.name, "function": function, "dtype": tf.dtypes.as_dtype(t.dtype).name,
                        "shape": [d.size for d in t.tensor_shape.dim], "bytes": size, "node_bytes": node.ByteSize(),
                        "graph_share": node.ByteSize() / graph_bytes})
    return Inspection(
        path=source["path"], format=source["format"], file_bytes=source["file_bytes"], graph_bytes=graph_bytes,
        nodes=len(graph_def.node), function_nodes=len(nodes) - len(graph_def.node), const_nodes=len(consts),
        const_bytes=sum(size for _, _, size in consts), const_node_bytes=sum(n.ByteSize() for _, n, _ in consts),
        headroom_bytes=GRAPHDEF_LIMIT - 1 - graph_bytes,
        op_types=tuple({"op": op, "nodes": c, "bytes": sizes[op]}
                       for op, c in sorted(counts.items(), key=lambda kv: (-kv[1], -sizes[kv[0]], kv[0]))),
        largest_consts=tuple(largest), repeats=_repeats(consts),
        elided_consts=sum(graphdefs.is_elided(n.attr["value"].tensor) for _, n, _ in consts),
        meta_graph=source.get("meta_graph"),
        tf_version=tf.__version__)


def strip_constants(graph_def):
    """Replace every tensor's contents with nothing, in place, keeping its dtype and shape."""
    from tfgraphs import graphdefs

    def strip(t):
        for fd in t.DESCRIPTOR.fields:
            if fd.name == "tensor_content" or fd.name.endswith("_val"):
                t.ClearField(fd.name)

    for _, n in graphdefs.located_nodes(graph_def):
        for attr in n.attr.values():
            if attr.HasField("tensor"):
                strip(attr.tensor)
            for t in attr.list.tensor:
                strip(t)
    return graph_def


def write_stripped(graph_def, path):
    """Strip graph_def's tensors and write it as text protobuf to path, atomically."""
    from google.protobuf import text_format

    text = text_format.MessageToString(strip_constants(graph_def))
    results.write_atomic(path, lambda f: f.write(text))


def _shape(dims):
    return "scalar" if not dims else "x".join(str(d) for d in dims)


def sentences(s):
    """What the numbers say about this graph; each sentence depends on them."""
    said = []
    share = s.const_node_bytes / s.graph_bytes
    one = s.const_nodes == 1
    said.append(f"{s.const_nodes:,} Const node{'' if one else 's'} take{'s' if one else ''} "
                f"{fmt_bytes(s.const_node_bytes)}, {share:.1%} of the {fmt_bytes(s.graph_bytes)} GraphDef"
                + (": most of the graph is constants." if share >= 0.5 else "."))
    k = s.elided_consts
    if k:
        who = ("It" if one else "Both" if k == s.const_nodes == 2 else f"All {k:,}" if k == s.const_nodes
               else f"{k:,} of them")
        said.append(f"{who} list{'s' if k == 1 else ''} fewer values than "
                    f"{'its shape holds' if k == 1 else 'their shapes hold'}, and TensorFlow fills the rest with the "
                    f"last value listed (zeros when none is): expanded, the constants hold {s.const_bytes:,} bytes, "
                    f"against the {s.const_node_bytes:,} {'its node takes' if one else 'their nodes take'} in the "
                    f"GraphDef.")
    if s.largest_consts:
        big = s.largest_consts[0]
        said.append(f"The largest, {big['name']} ({big['dtype']} {_shape(big['shape'])}), holds {big['bytes']:,} "
                    f"bytes once expanded; its node takes {fmt_bytes(big['node_bytes'])}, {big['graph_share']:.1%} "
                    f"of the graph.")
    for g in s.repeats[:3]:
        k = g["in_functions"]
        inside = f", {k} of them inside {'a function body' if k == 1 else 'function bodies'}." if k else "."
        said.append(f"{g['copies']} Const nodes hold the same {g['bytes']:,}-byte tensor ({', '.join(g['nodes'])}): "
                    f"{g['bytes'] * (g['copies'] - 1):,} bytes of the graph are repeats{inside}")
    if s.headroom_bytes < 0:
        said.append(f"At {s.graph_bytes:,} bytes the graph is past the 2 GiB limit: TensorFlow cannot serialize it.")
    else:
        used = s.graph_bytes / GRAPHDEF_LIMIT
        room = f", {s.headroom_bytes / s.graph_bytes:,.0f}x its size." if used < 0.5 else "."
        said.append(f"It uses {used * 100:.3g}% of the 2 GiB GraphDef limit; it could grow by {s.headroom_bytes:,} "
                    f"more bytes{room}")
    return said


def render(s, fmt="simple"):
    """The inspection as text: summary, op types, largest constants, and what they show."""
    where = s.format + (f", meta graph 1 of {s.meta_graph['of']} (tags {', '.join(s.meta_graph['tags']) or 'none'})"
                        if s.meta_graph else "")
    summary = [["file", s.path], ["format", where], ["file bytes", f"{s.file_bytes:,}"],
               ["graph bytes", f"{s.graph_bytes:,}"], ["nodes", f"{s.nodes:,}"],
               ["function nodes", f"{s.function_nodes:,}"], ["Const nodes", f"{s.const_nodes:,}"],
               ["const bytes", f"{s.const_bytes:,}"], ["headroom to 2 GiB", f"{s.headroom_bytes:,}"]]
    parts = [tabulate(summary, tablefmt=fmt, disable_numparse=True), ""]
    ops = s.op_types[:SHOWN_OP_TYPES]
    parts += ["Op types", tabulate([[o["op"], o["nodes"], o["bytes"], o["bytes"] / s.graph_bytes * 100] for o in ops],
                                   ["op", "nodes", "bytes", "% of graph"], tablefmt=fmt, intfmt=",", floatfmt=".1f")]
    more = len(s.op_types) - len(ops)
    parts += ([f"... and {more} more op types (all of them are in --json)."] if more > 0 else []) + [""]
    if s.largest_consts:
        body = [[c["name"], c["function"] or "(graph)", c["dtype"], _shape(c["shape"]), c["bytes"],
                 c["graph_share"] * 100] for c in s.largest_consts]
        parts += [f"Largest Const nodes ({len(body)} of {s.const_nodes:,})",
                  tabulate(body, ["name", "in", "dtype", "shape", "bytes", "% of graph"], tablefmt=fmt, intfmt=",",
                           floatfmt=".2f", disable_numparse=[3]),
                  "in = the graph itself or the function whose body holds the node; bytes = the tensor once expanded "
                  "(elements x itemsize); % of graph = the node's share of the serialized GraphDef.", ""]
    parts += ["What this graph shows:"] + [f"- {line}" for line in sentences(s)]
    return "\n".join(parts).rstrip() + "\n"
