"""Explain an inspection from its own numbers: what the constants take, what repeats, the headroom to 2 GiB."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
from tfgraphs.spec.owngraph import MIN_BYTES
from tfgraphs.units import fmt_bytes, shape_text


def sentences(s):
    """What the numbers say about this graph; each sentence depends on them."""
    return _constants(s) + _elided(s) + _largest(s) + _repeats(s) + _unembed_hint(s) + _headroom(s)


@rests_on("const_nodes", "const_node_bytes", "graph_bytes")
def _constants(s):
    share, one = s.const_node_bytes / s.graph_bytes, s.const_nodes == 1
    return [f"{s.const_nodes:,} Const node{'' if one else 's'} take{'s' if one else ''} "
            f"{fmt_bytes(s.const_node_bytes)}, {share:.1%} of the {fmt_bytes(s.graph_bytes)} GraphDef"
            + (": most of the graph is constants." if share >= 0.5 else ".")]


@rests_on("elided_consts", "const_nodes", "const_bytes")
def _elided(s):
    k, one = s.elided_consts, s.const_nodes == 1
    if not k:
        return []
    who = ("It" if one else "Both" if k == s.const_nodes == 2 else f"All {k:,}" if k == s.const_nodes
           else f"{k:,} of them")
    # tensor_util / tensor.cc: a Const listing fewer values than its shape is filled with its last value.
    return [f"{who} list{'s' if k == 1 else ''} fewer values than "
            f"{'its shape holds' if k == 1 else 'their shapes hold'}, and TensorFlow fills the rest with the "
            f"last value listed (zeros when none is): expanded, the constants hold {s.const_bytes:,} bytes, "
            f"against the {s.const_node_bytes:,} {'its node takes' if one else 'their nodes take'} in the "
            f"GraphDef."]


@rests_on("largest_consts")
def _largest(s):
    big = s.largest_consts[0]
    return [f"The largest, {big['name']} ({big['dtype']} {shape_text(big['shape'])}), holds {big['bytes']:,} "
            f"bytes once expanded; its node takes {fmt_bytes(big['node_bytes'])}, {big['graph_share']:.1%} "
            f"of the graph."]


@rests_on("repeats")
def _repeats(s):
    said = []
    for g in s.repeats[:3]:
        k = g["in_functions"]
        inside = f", {k} of them inside {'a function body' if k == 1 else 'function bodies'}." if k else "."
        said.append(f"{g['copies']} Const nodes hold the same {g['bytes']:,}-byte tensor ({', '.join(g['nodes'])}): "
                    f"{g['bytes'] * (g['copies'] - 1):,} bytes of the graph are repeats{inside}")
    return said


@rests_on("headroom_bytes", "graph_bytes")
def _headroom(s):
    if s.headroom_bytes < 0:
        return [f"At {s.graph_bytes:,} bytes the graph is past the 2 GiB serialized-GraphDef limit: TensorFlow "
                f"cannot serialize it."]
    used = s.graph_bytes / GRAPHDEF_LIMIT
    room = f", {s.headroom_bytes / s.graph_bytes:,.0f}x its size." if used < 0.5 else "."
    return [f"It uses {used * 100:.3g}% of the 2 GiB GraphDef limit; it could grow by {s.headroom_bytes:,} "
            f"more bytes{room}"]


@rests_on("largest_consts", "graph_bytes")
def _unembed_hint(s):
    """Suggest unembed when Consts of at least its default size, outside function bodies, are most of the graph."""
    movable = [c for c in s.largest_consts if c.get("function") is None and c["bytes"] >= MIN_BYTES]
    moved = sum(c["node_bytes"] for c in movable)
    if not movable or moved < 0.5 * s.graph_bytes:
        return []
    k = len(movable)
    who = (f"Its largest Const of at least {MIN_BYTES:,} bytes outside function bodies takes" if k == 1 else
           f"Its {k:,} largest Consts of at least {MIN_BYTES:,} bytes outside function bodies take")
    return [f"{who} {fmt_bytes(moved)}, {moved / s.graph_bytes:.1%} of the graph: `tfgraphs unembed {s.path} -o OUT` "
            f"moves such constants into variables restored from a checkpoint, which would leave a GraphDef of about "
            f"{fmt_bytes(s.graph_bytes - moved)}."]
