"""The first run as TensorFlow reports it: its optimizers' log lines, and the graph that actually ran."""

import os
import sys
import tempfile
from contextlib import contextmanager

from tfgraphs.spec import kernels, tflog


@contextmanager
def captured_stderr():
    """Hold what is written to fd 2 (TensorFlow's C++ log), between the worker's two marks, in a list of lines filled
    when the block ends."""
    lines = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        os.write(2, tflog.mark(tflog.CALLED).encode())
        try:
            yield lines
        finally:
            os.write(2, tflog.mark(tflog.RETURNED).encode())
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            lines.extend(tflog.logged_lines(held.read().decode("utf-8", "replace")))


def ran_graph(graph_def, partition_graphs):
    """What the partition graphs hold: op types counted, and the Const nodes that folding made."""
    if not partition_graphs:
        # A session that returned none (a remote master may not) reported nothing to read: no evidence, no verdict.
        return dict.fromkeys(("partition_ops", "replaced_by_const", "partition_computes", "partition_stateful"))
    before = {node.name: node.op for node in graph_def.node}
    ops, replaced = {}, []
    for graph in partition_graphs:
        for node in graph.node:
            ops[node.op] = ops.get(node.op, 0) + 1
            # A folded node is a Const where the user's graph had another op, or a Const the folder named anew.
            if node.op == "Const" and before.get(node.name, "") != "Const":
                replaced.append(node.name)
    computes = {op: any(kernels.runs_as(t, op) for t in ops) for op in kernels.NETWORK_OPS}
    return {"partition_ops": dict(sorted(ops.items())), "replaced_by_const": sorted(replaced),
            "partition_computes": computes, "partition_stateful": stateful(ops)}


def stateful(op_types):
    """The op types that TensorFlow's op registry marks stateful: no constant folder evaluates them."""
    from tensorflow.python.framework import op_def_registry

    # The executor's own _Arg and _Retval are marked stateful too; they say nothing about the graph.
    return sorted(t for t in op_types
                  if not t.startswith("_") and (op_def_registry.get(t) or _NOT_STATEFUL).is_stateful)


class _NOT_STATEFUL:
    is_stateful = False
