"""What inspect found in one GraphDef, as numbers (nothing was run)."""

from dataclasses import MISSING, asdict, dataclass, fields

from tfgraphs.records.possible import GRAPH_BYTES, ranged
from tfgraphs.records.rows import known
from tfgraphs.records.schema import PROVENANCE, Provenance, envelope, provenance, provenance_of


@dataclass(frozen=True)
class Inspection(Provenance):
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
    tf_version: str | None = None

    command = "inspect"

    def to_dict(self):
        d = {k: v for k, v in asdict(self).items() if k not in PROVENANCE}
        d["op_types"], d["largest_consts"], d["repeats"] = map(list, (self.op_types, self.largest_consts,
                                                                      self.repeats))
        return {**envelope("inspect"), **provenance(self), **d}

    @classmethod
    def from_dict(cls, d):
        """Rebuild from a saved --json document (no TensorFlow needed)."""
        missing = [f.name for f in fields(cls) if f.name not in d and f.default is MISSING
                   and f.default_factory is MISSING]
        if missing:
            raise ValueError(f"not a complete inspect result (no {', '.join(missing)})")
        return cls(**{**known(cls, d, op_types=tuple, largest_consts=tuple, repeats=tuple), **provenance_of(d)})
