"""What inspect found in one GraphDef, as numbers (nothing was run)."""

from dataclasses import MISSING, dataclass

from tfgraphs.records.document import OneRecord
from tfgraphs.records.possible import GRAPH_BYTES, ranged


@dataclass(frozen=True)
class Inspection(OneRecord):
    """The sizes and contents of one GraphDef, as numbers."""

    path: str
    format: str
    file_bytes: int = ranged(default=MISSING)
    graph_bytes: int = ranged(**GRAPH_BYTES, default=MISSING)   # the binary GraphDef's size, under the 2 GiB limit
    nodes: int = ranged(default=MISSING)
    function_nodes: int = ranged(default=MISSING)   # nodes inside the function library
    const_nodes: int = ranged(default=MISSING)
    const_bytes: int = ranged(default=MISSING)      # bytes of all Const tensors once expanded (elements x itemsize)
    const_node_bytes: int = ranged(default=MISSING)   # what those Const nodes take in the serialized graph
    headroom_bytes: int = ranged(default=MISSING)   # bytes the graph could still grow before TensorFlow refuses it
    op_types: tuple             # ({"op", "nodes", "bytes"}, ...), most nodes first
    largest_consts: tuple       # ({"name", "function", "dtype", "shape", "bytes", "node_bytes", "graph_share"}, ...)
    repeats: tuple = ()         # ({"bytes", "copies", "nodes", "in_functions"}, ...): identical tensors >= 1 KiB
    elided_consts: int | None = None   # Const nodes listing fewer values than their shape holds (None: not counted)
    meta_graph: dict | None = None

    command = "inspect"
    # inspect reads the graph without running it: its document names the TensorFlow that parsed it, no machine.
    RAN_ON = ("tf_version",)
