"""The ops each watched graph gained since it was last looked at: big constants and ops added after its first run."""

import collections
import itertools
import math
import weakref

# Per byte of tensor data a TensorProto stores at most 10 (a negative int8 as a varint); the rest of a Const's
# NodeDef is its name, device, attribute keys and shape, bounded here generously.
MAX_BYTES_PER_DATA_BYTE = 10
NODE_DEF_BASE_BYTES = 256
BYTES_PER_DIM = 12


class GraphState:
    """One graph's scan position (a node id of its C graph), how many session calls have run it, by which sessions,
    and the ops made since its last run, not yet known to be growth."""

    serials = itertools.count()

    def __init__(self, graph, forget):
        self.serial = next(self.serials)
        self.ref = weakref.ref(graph, forget)
        self.next_position = 0
        self.runs = 0
        self.sessions = weakref.WeakKeyDictionary()   # session -> its runs of this graph
        self.pending = []                             # (where, op type) made since the graph's last run


class GraphOps:
    """New ops of every graph seen, examined only once each: the cost follows the ops created, not the graph."""

    def __init__(self, frames, min_bytes):
        self.frames = frames
        self.min_bytes = min_bytes
        self.states = {}
        self.consts = []
        self.growth = {}
        self.ops = 0   # every op of every graph examined

    def state(self, graph):
        """The GraphState of graph, tracked from now on (weakly: a graph the script drops is not kept alive)."""
        key = id(graph)
        found = self.states.get(key)
        if found is None or found.ref() is not graph:
            found = self.states[key] = GraphState(graph, lambda _ref: self._forget(key, _ref))
        return found

    def _forget(self, key, ref):
        """Drop a dead graph's state, unless its id already names a new graph."""
        if key in self.states and self.states[key].ref is ref:
            del self.states[key]

    def examine_all(self, runs_so_far):
        """Examine the new ops of every tracked graph still alive."""
        for state in list(self.states.values()):
            graph = state.ref()
            if graph is not None:
                self.examine(graph, state, runs_so_far)

    def examine(self, graph, state, runs_so_far):
        """Examine the ops graph gained since the last look."""
        for op in self._new_ops(graph, state):
            self.ops += 1
            where = self.frames.of_traceback(op.traceback)
            if op.type == "Const":
                entry = self._const(op, where, runs_so_far)
                if entry is not None:
                    self.consts.append(entry)
            if state.runs:
                state.pending.append((where, op.type))

    def settle(self, state, session):
        """Before session runs the graph: the ops made since its last run are growth if this session ran it before;
        made before a session's first run, they are what that session starts with, and no leak."""
        ran = state.sessions.get(session, 0)
        if ran:
            for where, op_type in state.pending:
                self._grew(where, op_type, (state.serial, state.runs))
        state.pending.clear()
        state.sessions[session] = ran + 1

    def settle_all(self):
        """At the end: ops made after a graph's last run, by then run by some session, are growth."""
        for state in self.states.values():
            for where, op_type in state.pending:
                self._grew(where, op_type, (state.serial, state.runs))
            state.pending.clear()

    @staticmethod
    def _new_ops(graph, state):
        """The ops of graph past the scan position, in creation order, found through the C graph's node ids."""
        from tensorflow.python.client import pywrap_tf_session

        # Graph._nodes_by_id and get_operations() copy the whole graph on each access; this walk does not.
        while True:
            c_op, after = _next_operation(pywrap_tf_session, graph, state.next_position)
            if c_op is None:
                return
            state.next_position = after
            try:
                op = graph._get_operation_by_tf_operation(c_op)
            except KeyError:
                op = None  # made through the C API and not yet given a Python Operation
            if op is not None:
                yield op

    def _const(self, op, where, runs_so_far):
        """The consts entry of a Const op whose NodeDef holds at least min_bytes, else None."""
        out = op.outputs[0]
        dims = out.shape.as_list() if out.shape.rank is not None else None
        known = dims is not None and all(d is not None for d in dims)
        tensor_bytes = math.prod(dims) * out.dtype.size if known and out.dtype.size else None
        if tensor_bytes is not None:
            most = (tensor_bytes * MAX_BYTES_PER_DATA_BYTE + NODE_DEF_BASE_BYTES + BYTES_PER_DIM * len(dims)
                    + 2 * (len(op.name) + len(op.device)))
            if most < self.min_bytes:
                return None
        node_def_bytes = self._node_def_bytes(op)
        if node_def_bytes < self.min_bytes:
            return None
        return {"file": where[0], "line": where[1], "name": op.name, "bytes": node_def_bytes,
                "tensor_bytes": tensor_bytes, "dtype": out.dtype.name, "shape": dims, "runs_before": runs_so_far}

    @staticmethod
    def _node_def_bytes(op):
        """The size of op's serialized NodeDef, as the GraphDef holds it."""
        serialized = getattr(op, "_node_def", None)
        if isinstance(serialized, bytes):
            return len(serialized)
        return op.node_def.ByteSize()

    def _grew(self, where, op_type, epoch):
        """Count an op a line added after its graph's first run; epoch names the interval between two runs."""
        entry = self.growth.get(where)
        if entry is None:
            entry = self.growth[where] = {"ops": 0, "epochs": set(), "op_types": collections.Counter()}
        entry["ops"] += 1
        entry["epochs"].add(epoch)
        entry["op_types"][op_type] += 1

    def consts_list(self):
        """The consts entries, sorted by file, line and name."""
        return sorted(self.consts, key=lambda c: (c["file"], c["line"], c["name"]))

    def growth_list(self):
        """The growth entries, sorted by file and line."""
        return [{"file": f, "line": line, "ops": e["ops"], "runs": len(e["epochs"]),
                 "op_types": dict(sorted(e["op_types"].items()))}
                for (f, line), e in sorted(self.growth.items())]


def _next_operation(pywrap_tf_session, graph, position):
    """(the C op after position, its position): TensorFlow 2.21 takes the Graph, earlier ones its C graph."""
    try:
        return pywrap_tf_session.TF_GraphNextOperation(graph, position)
    except TypeError:
        with graph._c_graph.get() as c_graph:   # a ScopedTFGraph, alive inside the with block
            return pywrap_tf_session.TF_GraphNextOperation(c_graph, position)
