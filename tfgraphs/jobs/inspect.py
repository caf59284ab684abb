"""The inspect job: read a GraphDef file and size what it holds, without importing it into a graph or running it."""

import hashlib
import os
from collections import Counter, defaultdict
from dataclasses import dataclass

from tfgraphs.fileio import write_atomic
from tfgraphs.graphdef import consts, files
from tfgraphs.records.inspect import Inspection
from tfgraphs.spec import common
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
from tfgraphs.spec.options import Option, Whole, optional_path
from tfgraphs.tfimport import import_tensorflow

REPEAT_MIN_BYTES = 1024   # smaller tensors repeat legitimately (shapes, axes, scalars)


@dataclass(frozen=True)
class Config:
    """What the user asked to inspect, and where the outputs go."""

    path: str = common.GRAPH_PATH.field(help="a GraphDef (.pb binary, .pbtxt text), a SavedModel directory or its "
                                             "saved_model.pb")
    top: int = Option(10, Whole(most=100_000), "largest Const nodes to list").field()
    json: str | None = common.JSON.field()
    strip_constants: str | None = Option(None, optional_path, "write a text copy of the graph with every tensor's "
                                         "contents removed (dtype and shape kept)", metavar="OUT.pbtxt").field()


def plan(config):
    """Refuse, before anything is read, a path that holds no graph (outputs over it are refused by the API)."""
    files.locate(config.path)


def run(config):
    """The Inspection of the graph at config.path; writes the stripped copy when asked."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # nothing runs here, so TensorFlow has nothing to report
    graph_def, source = files.load(config.path)
    found = summarize(graph_def, source, top=config.top)
    if config.strip_constants:
        write_stripped(graph_def, config.strip_constants)
    return found


def _where(function, name):
    return name if function is None else f"{function}/{name}"


def _repeats(held):
    """Groups of Const nodes of at least REPEAT_MIN_BYTES holding byte-identical tensors, largest first."""
    candidates = defaultdict(list)
    for function, node, size in held:
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
    tf = import_tensorflow()
    graph_bytes = graph_def.ByteSize()
    located = list(consts.located_nodes(graph_def))
    nodes = [n for _, n in located]
    counts, sizes = Counter(), Counter()
    for n in nodes:
        counts[n.op] += 1
        sizes[n.op] += n.ByteSize()
    held = [(function, n, consts.tensor_bytes(n.attr["value"].tensor)) for function, n in located if n.op == "Const"]
    held.sort(key=lambda c: (-c[2], c[0] is not None, c[1].name))
    largest = []
    for function, node, size in held[:top]:
        t = node.attr["value"].tensor
        largest.append({"name": node.name, "function": function, "dtype": tf.dtypes.as_dtype(t.dtype).name,
                        "shape": [d.size for d in t.tensor_shape.dim], "bytes": size, "node_bytes": node.ByteSize(),
                        "graph_share": node.ByteSize() / graph_bytes})
    return Inspection(
        path=source["path"], format=source["format"], file_bytes=source["file_bytes"], graph_bytes=graph_bytes,
        nodes=len(graph_def.node), function_nodes=len(nodes) - len(graph_def.node), const_nodes=len(held),
        const_bytes=sum(size for _, _, size in held), const_node_bytes=sum(n.ByteSize() for _, n, _ in held),
        headroom_bytes=GRAPHDEF_LIMIT - 1 - graph_bytes,
        op_types=tuple({"op": op, "nodes": c, "bytes": sizes[op]}
                       for op, c in sorted(counts.items(), key=lambda kv: (-kv[1], -sizes[kv[0]], kv[0]))),
        largest_consts=tuple(largest), repeats=_repeats(held),
        elided_consts=sum(consts.is_elided(n.attr["value"].tensor) for _, n, _ in held),
        meta_graph=source.get("meta_graph"),
        tf_version=tf.__version__)


def write_stripped(graph_def, path):
    """Strip graph_def's tensors and write it as text protobuf to path, atomically."""
    from google.protobuf import text_format

    text = text_format.MessageToString(consts.strip_constants(graph_def))
    write_atomic(path, lambda f: f.write(text))
