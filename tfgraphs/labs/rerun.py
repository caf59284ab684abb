"""Graphs a student's code built: serialized where that code runs, imported and run by the judge on its own inputs.

What crosses is TensorFlow's own serialization (a GraphDef's bytes, tensor names, the arrays a feed_dict gives), never
a size, an output or a verdict computed beside the student's code: the judge measures and runs the graph itself.
"""

import numpy as np

from tfgraphs.graphdef.consts import located_nodes, tensor_bytes
from tfgraphs.tfimport import import_tensorflow

VARIABLE_OPS = {"VariableV2", "Variable", "VarHandleOp"}
# The ops with effects beyond their outputs that a lab's graph may hold: its variables. Every other op TensorFlow
# registers as stateful (printing, writing files, calling Python) is not run here, nor Abort, which ends the process.
RUNNABLE_STATEFUL = VARIABLE_OPS | {"AssignVariableOp", "ReadVariableOp", "VarIsInitializedOp"}
NEVER_RUN = {"Abort"}
RUN_MS = 60_000   # a graph that loops or waits is stopped here, as the child is by the checks' timeout


class GraphFailed(Exception):
    """Running a student's graph in the judge raised: TensorFlow's error, kept as the cause."""


class ForeignFeed(Exception):
    """A feed_dict gives a tensor a value the checker never gave the student's code."""


def serialized(graph):
    """The child's side: graph as the bytes of its GraphDef."""
    return graph.as_graph_def().SerializeToString()


def name_of(graph, element):
    """The child's side: the name of a tensor or op (or of what a name string refers to) in graph."""
    return graph.as_graph_element(element).name


def feed_of(graph, feed):
    """The child's side: a feed_dict as {tensor name: the value as an array}."""
    return {name_of(graph, key): np.asarray(value) for key, value in (feed or {}).items()}


def graph_def(data):
    """The GraphDef in the bytes a child sent."""
    tf = import_tensorflow()
    return tf.compat.v1.GraphDef.FromString(data)


def largest_const(graph_def):
    """(name, bytes) of the Const holding the most bytes once expanded, or None."""
    consts = [(n.name, tensor_bytes(n.attr["value"].tensor)) for n in graph_def.node if n.op == "Const"]
    return max(consts, key=lambda c: c[1]) if consts else None


def imported(data):
    """A new Graph holding the GraphDef in data, its node names unchanged; GraphFailed, before anything is imported,
    when it holds an op the judge does not run."""
    tf = import_tensorflow()
    proto = graph_def(data)
    refused = sorted({n.op for _, n in located_nodes(proto) if not _runnable(n.op)})
    if refused:
        raise GraphFailed(f"it holds {', '.join(refused)}: ops whose effects reach beyond the graph's outputs, or that "
                          f"TensorFlow does not know, are not run by the checker")
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(proto, name="")
    return graph


def _runnable(op_type):
    """True for an op the judge runs: one TensorFlow registers, without effects beyond its outputs but a variable's."""
    from tensorflow.python.framework import op_def_registry

    op_def = op_def_registry.get(op_type)
    if op_def is None or op_type in NEVER_RUN:
        return False
    return not op_def.is_stateful or op_type in RUNNABLE_STATEFUL


def own_feed(graph, given, replacements):
    """The judge's feed_dict for the student's: each value equal to one the checker gave becomes the judge's own
    counterpart from (given, own) replacements; any other value raises ForeignFeed."""
    feed = {}
    for name, value in given.items():
        own = next((o for g, o in replacements if np.shape(value) == g.shape and np.array_equal(value, g)), None)
        if own is None:
            raise ForeignFeed(name)
        feed[graph.get_tensor_by_name(name)] = own
    return feed


def run(sess, fetches, feed_dict=None):
    """sess.run in the judge, its error raised as GraphFailed."""
    tf = import_tensorflow()
    try:
        return sess.run(fetches, feed_dict=feed_dict, options=tf.compat.v1.RunOptions(timeout_in_ms=RUN_MS))
    except (tf.errors.OpError, ValueError, TypeError, KeyError) as exc:
        raise GraphFailed(str(exc)) from exc


def variable_reads(graph):
    """(name, tensor reading its value) of each variable in graph; a resource variable gets a read op of its own."""
    tf = import_tensorflow()
    reads = []
    with graph.as_default():
        for op in graph.get_operations():
            if op.type == "VarHandleOp":
                reads.append((op.name, tf.raw_ops.ReadVariableOp(resource=op.outputs[0], dtype=op.get_attr("dtype"))))
            elif op.type in VARIABLE_OPS:
                reads.append((op.name, op.outputs[0]))
    return reads


def holding(sess, reads, value):
    """Names of the variables whose value, read in sess, equals value; one not yet initialized holds nothing."""
    tf = import_tensorflow()
    held = []
    for name, read in reads:
        try:
            got = sess.run(read)
        except tf.errors.OpError:
            continue
        if np.shape(got) == np.shape(value) and np.array_equal(got, value):
            held.append(name)
    return held


def executor(data):
    """(fed, fetched) tensor names of the executor a run ran, from its RunMetadata's bytes: the _Arg and _Retval
    nodes TensorFlow put in its partition graphs ('_arg_X_0_0' feeds X:0, the last number being its place)."""
    tf = import_tensorflow()
    meta = tf.compat.v1.RunMetadata.FromString(data)
    ends = {"_Arg": ("_arg_", set()), "_Retval": ("_retval_", set())}
    for graph in meta.partition_graphs:
        for node in graph.node:
            if node.op in ends and node.name.startswith(ends[node.op][0]):
                tensor = node.name[len(ends[node.op][0]):].rsplit("_", 1)[0]
                ends[node.op][1].add(":".join(tensor.rsplit("_", 1)))
    return frozenset(ends["_Arg"][1]), frozenset(ends["_Retval"][1])
