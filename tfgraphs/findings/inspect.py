"""What an inspection tells a reader, declared as data: what the constants take, what repeats, the headroom to 2 GiB,
each from the inspection's own numbers."""

from tfgraphs.findings.evidence import Finding, Record, on_record, said_by
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
from tfgraphs.spec.owngraph import MIN_BYTES
from tfgraphs.units import fmt_bytes, shape_text


def _constants(s):
    share, one = s.const_node_bytes / s.graph_bytes, s.const_nodes == 1
    return [f"{s.const_nodes:,} Const node{'' if one else 's'} take{'s' if one else ''} "
            f"{fmt_bytes(s.const_node_bytes)}, {share:.1%} of the {fmt_bytes(s.graph_bytes)} GraphDef"
            + (": most of the graph is constants." if share >= 0.5 else ".")]


def _elided(s):
    k, one = s.elided_consts, s.const_nodes == 1
    who = ("It" if one else "Both" if k == s.const_nodes == 2 else f"All {k:,}" if k == s.const_nodes
           else f"{k:,} of them")
    # tensor_util / tensor.cc: a Const listing fewer values than its shape is filled with its last value.
    return [f"{who} list{'s' if k == 1 else ''} fewer values than "
            f"{'its shape holds' if k == 1 else 'their shapes hold'}, and TensorFlow fills the rest with the "
            f"last value listed (zeros when none is): expanded, the constants hold {s.const_bytes:,} bytes, "
            f"against the {s.const_node_bytes:,} {'its node takes' if one else 'their nodes take'} in the "
            f"GraphDef."]


def _largest(s):
    big = s.largest_consts[0]
    return [f"The largest, {big['name']} ({big['dtype']} {shape_text(big['shape'])}), holds {big['bytes']:,} "
            f"bytes once expanded; its node takes {fmt_bytes(big['node_bytes'])}, {big['graph_share']:.1%} "
            f"of the graph."]


def _repeats(s):
    said = []
    for g in s.repeats[:3]:
        k = g["in_functions"]
        inside = f", {k} of them inside {'a function body' if k == 1 else 'function bodies'}." if k else "."
        said.append(f"{g['copies']} Const nodes hold the same {g['bytes']:,}-byte tensor ({', '.join(g['nodes'])}): "
                    f"{g['bytes'] * (g['copies'] - 1):,} bytes of the graph are repeats{inside}")
    return said


def _headroom(s):
    if s.headroom_bytes < 0:
        return [f"At {s.graph_bytes:,} bytes the graph is past the 2 GiB serialized-GraphDef limit: TensorFlow "
                f"cannot serialize it."]
    used = s.graph_bytes / GRAPHDEF_LIMIT
    room = f", {s.headroom_bytes / s.graph_bytes:,.0f}x its size." if used < 0.5 else "."
    return [f"It uses {used * 100:.3g}% of the 2 GiB GraphDef limit; it could grow by {s.headroom_bytes:,} "
            f"more bytes{room}"]


def _unembed_hint(s):
    """Suggest unembed when Consts of at least its default size, outside function bodies, are most of the graph."""
    movable = _movable(s)
    moved = sum(c["node_bytes"] for c in movable)
    k = len(movable)
    who = (f"Its largest Const of at least {MIN_BYTES:,} bytes outside function bodies takes" if k == 1 else
           f"Its {k:,} largest Consts of at least {MIN_BYTES:,} bytes outside function bodies take")
    return [f"{who} {fmt_bytes(moved)}, {moved / s.graph_bytes:.1%} of the graph: `tfgraphs unembed {s.path} -o OUT` "
            f"moves such constants into variables restored from a checkpoint, which would leave a GraphDef of about "
            f"{fmt_bytes(s.graph_bytes - moved)}."]


def _movable(s):
    """The largest Consts of at least unembed's default size outside function bodies."""
    return [c for c in s.largest_consts if c.get("function") is None and c["bytes"] >= MIN_BYTES]


def _mostly_movable(s):
    """True when such Consts take half of the graph or more."""
    movable = _movable(s)
    return bool(movable) and sum(c["node_bytes"] for c in movable) >= 0.5 * s.graph_bytes


DECLARED = (
    Finding("inspect.constants", ("const_nodes", "const_node_bytes", "graph_bytes"), lambda v: True,
            on_record(_constants), False,
            "{n} Const nodes take {bytes}, {share} of the {bytes} GraphDef: most of the graph is constants (where "
            "they take half of it or more).",
            "the inspection did not count the graph's Const nodes and their bytes"),
    Finding("inspect.elided", ("elided_consts", "const_nodes", "const_bytes"), lambda v: v.record.elided_consts,
            on_record(_elided), False,
            "{n} of them list fewer values than their shapes hold, and TensorFlow fills the rest with the last value "
            "listed (zeros when none is): expanded, the constants hold {bytes} bytes, against the {bytes} their nodes "
            "take in the GraphDef.", "every Const lists all the values its shape holds"),
    Finding("inspect.largest", ("largest_consts",), lambda v: True, on_record(_largest), False,
            "The largest, {name} ({dtype} {shape}), holds {bytes} bytes once expanded; its node takes {bytes}, "
            "{share} of the graph.", "the graph has no Const node"),
    Finding("inspect.repeats", ("repeats",), lambda v: True, on_record(_repeats), False,
            "{n} Const nodes hold the same {bytes}-byte tensor ({nodes}): {bytes} bytes of the graph are repeats, "
            "{n} of them inside function bodies. (three at most)", "no two Const nodes hold the same tensor"),
    Finding("inspect.unembed_hint", ("largest_consts", "graph_bytes"), lambda v: _mostly_movable(v.record),
            on_record(_unembed_hint), False,
            "Its {n} largest Consts of at least {bytes} bytes outside function bodies take {bytes}, {share} of the "
            "graph: `tfgraphs unembed {path} -o OUT` moves such constants into variables ...",
            "such Consts take less than half of the graph"),
    Finding("inspect.headroom", ("headroom_bytes", "graph_bytes"), lambda v: True, on_record(_headroom), False,
            "It uses {share} of the 2 GiB GraphDef limit; it could grow by {bytes} more bytes. / At {bytes} bytes "
            "the graph is past the 2 GiB serialized-GraphDef limit: TensorFlow cannot serialize it.",
            "the inspection did not measure the serialized GraphDef"),
)


def told(s):
    """(no answer block, the findings) of one inspection."""
    return [], said_by(DECLARED, Record(s))


def sentences(s):
    """What the numbers say about this graph; each sentence depends on them."""
    return told(s)[1]
