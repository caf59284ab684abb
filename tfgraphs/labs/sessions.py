"""Sessions a student's code opens while a check of lab 5 or 6 runs, each run made by the judge.

In the process running the student's code, tf.compat.v1.Session is a JudgedSession while a check's body runs
(judged()): each run sends what TensorFlow serialized of its graph when that graph has changed, the names it fetches
and feeds, and the arrays fed; the judge (Observer) adds the new ops to a graph of its own, runs them in a session of
its own, bounded in size and by the check's limit, and answers with the values, which the student's code gets as
Session.run's. What each session ran, on how many ops, with which executor (TensorFlow's partition graphs of the
run) and fetching which values, is the judge's own record: nothing the student's process says of its runs is used.
"""

import time
from contextlib import contextmanager

import numpy as np
import tensorflow as tf

from tfgraphs.labs import rerun
from tfgraphs.labs.verdicts import CHANNEL, GraphFailed, first_line

v1 = tf.compat.v1
SESSION = v1.Session   # the judge's own sessions: in one process with the student's code, judged() replaces v1.Session


class JudgedSession(SESSION):
    """A Session whose runs the judge makes: its graph and the default-session behaviour stay this process's."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self.ask = CHANNEL[0]
        self.number = self.ask({"open": id(self.graph)})["session"]   # which of the process's graphs: said, not run
        self.sent = None   # the graph's version when the judge last got it

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        graph = self.graph
        flat = tf.nest.flatten(fetches)
        request = {"session": self.number, "fetch": [graph.as_graph_element(f).name for f in flat],
                   "feed": {graph.as_graph_element(k).name: np.asarray(v) for k, v in (feed_dict or {}).items()},
                   "finalized": graph.finalized, "graph": None}
        if graph.version != self.sent:
            request["graph"], self.sent = graph.as_graph_def().SerializeToString(), graph.version
        reply = self.ask({"run": request})
        if "error" in reply:
            raise v1.errors.exception_type_from_error_code(int(reply["code"]))(None, None, str(reply["error"]))
        values = [v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v for v in reply["values"]]
        return tf.nest.pack_sequence_as(fetches, values)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        def call(*args, **kwargs):
            return self.run(fetches, dict(zip(feed_list or (), args)))
        return call


@contextmanager
def judged():
    """Within, tf.compat.v1.Session makes JudgedSessions."""
    v1.Session = JudgedSession
    try:
        yield
    finally:
        v1.Session = SESSION


def mark(name):
    """Tell the judge the check's body reached `name` (its runs after it are that part's)."""
    CHANNEL[0]({"mark": name})


class Held:
    """One session of the student's code, as the judge holds it: its graph and a session on it."""

    def __init__(self):
        self.graph, self.session = tf.Graph(), None

    def extend(self, proto):
        """Add to the graph the ops of proto it does not hold yet (as TensorFlow extends a running session)."""
        refused = rerun.refused_ops(proto)
        if refused:
            raise GraphFailed(f"the graph holds {', '.join(refused)[:200]}: ops whose effects reach beyond the "
                              "graph's outputs, that read files, or that TensorFlow does not know, are not run by "
                              "the checker")
        held = {op.name for op in self.graph.get_operations()}
        part = v1.GraphDef()
        part.versions.CopyFrom(proto.versions)
        if not held:
            part.library.CopyFrom(proto.library)
        part.node.extend(n for n in proto.node if n.name not in held)
        for node in part.node:
            _colocated_within(node, held)
        with self.graph.as_default():
            v1.import_graph_def(part, input_map=self._inputs(part, held), name="")
        if self.session is None:
            self.session = SESSION(graph=self.graph)

    def _inputs(self, part, held):
        """The input_map joining new ops to the ops held: a control input maps to one of its op's outputs."""
        mapped = {}
        for node in part.node:
            for name in node.input:
                op = name.lstrip("^").split(":")[0]
                if op not in held:
                    continue
                if name.startswith("^"):
                    outputs = self.graph.get_operation_by_name(op).outputs
                    if not outputs:
                        raise GraphFailed(f"an op made after the first run waits on {op[:80]!r}, which has no "
                                          "output: the checker cannot add that wait to a running session")
                    mapped[name] = outputs[0]
                else:
                    mapped[name if ":" in name else name + ":0"] = self.graph.get_tensor_by_name(
                        name if ":" in name else name + ":0")
        return mapped


def _colocated_within(node, held):
    """Drop from node's colocation list (its `_class` attr, loc:@OP) the ops the judge holds already: TensorFlow's
    importer checks that list against the GraphDef it imports, which holds only the new ops, and refuses an update op
    colocated with a variable made before the first run. One device runs every op here, so the list places nothing."""
    if "_class" not in node.attr:
        return
    kept = [c for c in node.attr["_class"].list.s if not (c.startswith(b"loc:@") and c[5:].decode() in held)]
    if kept:
        del node.attr["_class"].list.s[:]
        node.attr["_class"].list.s.extend(kept)
    else:
        del node.attr["_class"]


class Observer:
    """The judge's side: every session opened and run made while one check's body ran, and its own record of them."""

    def __init__(self):
        self.held, self.runs, self.marks, self.graphs = [], [], [], set()

    def answer(self, request):
        """The reply to one request of a JudgedSession."""
        if "open" in request:
            self.graphs.add(str(request["open"]))
            self.held.append(Held())
            return {"session": len(self.held) - 1}
        if "mark" in request:
            self.marks.append((str(request["mark"]), len(self.runs), len(self.held), time.perf_counter()))
            return {}
        return self._run(request["run"])

    def _run(self, asked):
        number = int(asked["session"])
        held = self.held[number]
        entry = {"session": number, "fetched": sorted(set(asked["fetch"])), "fed": sorted(asked["feed"]),
                 "finalized": bool(asked["finalized"]), "executor": None, "scalars": [], "ok": False}
        self.runs.append(entry)
        try:
            if asked["graph"] is not None:
                held.extend(rerun.graph_def(asked["graph"]))
            if held.session is None:
                raise GraphFailed("a run sent no graph")
            entry["ops"] = len(held.graph.get_operations())
            meta = v1.RunMetadata()
            feed = {held.graph.get_tensor_by_name(name): value for name, value in asked["feed"].items()}
            start = time.perf_counter()
            values = rerun.run(held.session, list(asked["fetch"]), feed,
                               v1.RunOptions(output_partition_graphs=True), meta)
            entry["seconds"] = time.perf_counter() - start   # the judge's own time of the run it made
        except GraphFailed as exc:
            cause = exc.__cause__
            code = getattr(cause, "error_code", None) or tf.errors.INVALID_ARGUMENT
            return {"error": first_line(cause or exc), "code": int(code)}
        except (ValueError, KeyError, TypeError) as exc:
            return {"error": first_line(exc), "code": int(tf.errors.INVALID_ARGUMENT)}
        entry.update(ok=True, executor=executor(meta.SerializeToString()),
                     scalars=[float(v) for v in values if v is not None and np.ndim(v) == 0
                              and np.issubdtype(np.asarray(v).dtype, np.number)])
        return {"values": [None if v is None else np.asarray(v) for v in values]}

    def record(self):
        """What the judge saw, as plain data: each session's runs in order, where and when each mark fell, and when
        the record was taken."""
        return {"sessions": len(self.held), "graphs": len(self.graphs), "runs": list(self.runs),
                "marks": list(self.marks), "taken": time.perf_counter()}

    def close(self):
        """Close every session held."""
        for held in self.held:
            if held.session is not None:
                held.session.close()
        self.held = []


def executor(data):
    """(fed, fetched) tensor names of the executor a run ran, from its RunMetadata's bytes: the _Arg and _Retval
    nodes TensorFlow put in its partition graphs ('_arg_X_0_0' feeds X:0, the last number being its place)."""
    meta = v1.RunMetadata.FromString(data)
    ends = {"_Arg": ("_arg_", set()), "_Retval": ("_retval_", set())}
    for graph in meta.partition_graphs:
        for node in graph.node:
            if node.op in ends and node.name.startswith(ends[node.op][0]):
                tensor = node.name[len(ends[node.op][0]):].rsplit("_", 1)[0]
                ends[node.op][1].add(":".join(tensor.rsplit("_", 1)))
    return sorted(ends["_Arg"][1]), sorted(ends["_Retval"][1])
