"""Rewrite a graph's large Consts into non-trainable variables and write a TF1 SavedModel: `python -m
tfgraphs.worker.unembed --path P --out DIR --min-bytes N ...` prints one JSON document.

Each moved Const N becomes VariableV2 `N/variable`, read by an Identity still named N, so every consumer, control
edge and colocation of N is untouched; its value goes to the checkpoint instead of the GraphDef.
"""

import os
import sys
import time

from tfgraphs import machine
from tfgraphs.spec import owngraph
from tfgraphs.spec.tasks import UnembedTask
from tfgraphs.tfimport import import_tensorflow
from tfgraphs.worker import protocol

_phase = protocol.phase
LEFT_IN_FUNCTION = ("inside function {function!r}: a function body cannot read a graph variable without a new "
                    "input to the function, so it stays a Const")


def sizes(graph_def):
    """The GraphDef's bytes, its Const bytes and its largest Const's bytes."""
    from tfgraphs.graphdef import consts

    held = [size for _, size in consts.const_nodes(graph_def)]
    return {"graph_bytes": graph_def.ByteSize(), "const_bytes": sum(held), "largest_const_bytes": max(held, default=0)}


def choose(graph_def, min_bytes):
    """(moved, left): top-level Consts of at least min_bytes, and those inside function bodies, with the reason."""
    tf = import_tensorflow()
    from tfgraphs.graphdef.consts import located_nodes, tensor_bytes

    moved, left = [], []
    for function, n in located_nodes(graph_def):
        if n.op != "Const" or tensor_bytes(n.attr["value"].tensor) < min_bytes:
            continue
        t = n.attr["value"].tensor
        found = {"name": n.name, "bytes": tensor_bytes(t), "dtype": tf.dtypes.as_dtype(t.dtype).name,
                 "shape": [d.size for d in t.tensor_shape.dim]}
        if function is None:
            moved.append((n, found))
        else:
            left.append({**found, "function": function, "reason": LEFT_IN_FUNCTION.format(function=function)})
    return moved, left


def _value(tf, tensor):
    """A Const's value as an array; over tensor_content without a copy (protobuf already hands out a new bytes)."""
    import numpy as np

    if not tensor.tensor_content:
        return tf.make_ndarray(tensor)
    dtype = tf.dtypes.as_dtype(tensor.dtype).as_numpy_dtype
    return np.frombuffer(tensor.tensor_content, dtype=dtype).reshape([d.size for d in tensor.tensor_shape.dim])


def rewrite(graph_def, moved):
    """Turn each moved Const into Identity(N/variable) in place; return {name: value} of what they held."""
    tf = import_tensorflow()
    values = {}
    for n, _ in moved:
        t = n.attr["value"].tensor
        values[n.name] = _value(tf, t)
        dtype, shape, device = t.dtype, type(t.tensor_shape)(), n.device
        shape.CopyFrom(t.tensor_shape)
        n.op = "Identity"
        n.ClearField("attr")   # frees the tensor: the value now lives in `values` only
        controls = [i for i in n.input if i.startswith("^")]
        del n.input[:]
        n.input.extend([n.name + "/variable", *controls])
        n.attr["T"].type = dtype
        var = graph_def.node.add(name=n.name + "/variable", op="VariableV2", device=device)
        var.attr["dtype"].type = dtype
        var.attr["shape"].shape.CopyFrom(shape)
        var.attr["container"].s = var.attr["shared_name"].s = b""
    return values


def variables(graph, names):
    """A non-trainable RefVariable for each rewritten name, with a zero-filled initializer, in GLOBAL_VARIABLES."""
    tf = import_tensorflow()
    from tensorflow.core.framework import variable_pb2

    v1, out = tf.compat.v1, {}
    with graph.as_default():
        for name in names:
            ref = graph.get_tensor_by_name(name + "/variable:0")
            # fill, not zeros: tf.zeros embeds small shapes as a Const of that size.
            zero = v1.fill(tf.shape(ref, name=name + "/Initializer/shape"), tf.constant(0, ref.dtype.base_dtype),
                           name=name + "/Initializer/zeros")
            assign = v1.assign(ref, zero, name=name + "/Assign")
            proto = variable_pb2.VariableDef(variable_name=ref.name, initializer_name=assign.name,
                                             snapshot_name=name + ":0", initial_value_name=zero.name,
                                             trainable=False)
            out[name] = v1.Variable(variable_def=proto, use_resource=False)
            graph.add_to_collection(v1.GraphKeys.GLOBAL_VARIABLES, out[name])
    return out


def signatures(task, graph, source_meta):
    """The original SavedModel's signatures, or one named task.signature after the graph's inputs and outputs."""
    tf = import_tensorflow()
    if source_meta is not None and source_meta.signature_def:
        return dict(source_meta.signature_def)
    info = tf.compat.v1.saved_model.utils.build_tensor_info

    def key(tensor):
        return tensor[:-2] if tensor.endswith(":0") else tensor

    inputs = {key(f.tensor): info(graph.get_tensor_by_name(f.tensor)) for f in owngraph.decode_feeds(task.feeds)}
    outputs = {key(t): info(graph.get_tensor_by_name(t)) for t in owngraph.decode_fetches(task.fetches)}
    method = tf.compat.v1.saved_model.signature_constants.PREDICT_METHOD_NAME
    return {task.signature: tf.compat.v1.saved_model.signature_def_utils.build_signature_def(inputs, outputs, method)}


def _import(task, tf, graph_def, source_meta):
    """The rewritten graph in a session, with the original SavedModel's own variables restored."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        if source_meta is None:
            v1.import_graph_def(graph_def, name="")
            saver = None
        else:
            saver = v1.train.import_meta_graph(source_meta)
    sess = v1.Session(graph=graph)
    folder = task.path if os.path.isdir(task.path) else os.path.dirname(task.path)
    checkpoint = os.path.join(folder, "variables", "variables")
    if saver is not None and os.path.exists(checkpoint + ".index"):
        _phase("restore the original variables")
        with graph.as_default():
            saver.restore(sess, checkpoint)
    return sess


def _save(task, sess, source_meta):
    """Write the SavedModel to task.out (a folder that must not exist yet), saving every global variable."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    with sess.graph.as_default():
        saver = v1.train.Saver(v1.global_variables(), sharded=False, allow_empty=True)
        serve = [v1.saved_model.tag_constants.SERVING]
        tags = list(source_meta.meta_info_def.tags) if source_meta is not None else serve
        builder = v1.saved_model.builder.SavedModelBuilder(task.out)
        builder.add_meta_graph_and_variables(sess, tags, signatures(task, sess.graph, source_meta), saver=saver)
        builder.save()


def measure(task):
    """Read, rewrite, restore, assign and save, each phase timed; the sizes before and after, what moved or stayed."""
    from tfgraphs.graphdef import files

    _phase("import tensorflow")
    tf = import_tensorflow()
    tf_rss = machine.rss_bytes()   # TensorFlow's own footprint, which the rewrite's memory is measured above
    phases = {}
    _phase("read")
    t0 = time.perf_counter()
    graph_def, source = files.load(task.path, task.tag)
    phases["read_s"] = time.perf_counter() - t0
    source_meta = source.get("meta_graph_def")
    before = sizes(graph_def)
    moved, left = choose(graph_def, task.min_bytes)
    _phase("rewrite")
    t0 = time.perf_counter()
    values = rewrite(graph_def, moved)
    sess = _import(task, tf, graph_def, source_meta)
    # The moved nodes belong to graph_def: drop them too, or the whole parsed graph stays in memory.
    moved = [found for _, found in moved]
    del graph_def, source
    found = variables(sess.graph, list(values))
    phases["rewrite_s"] = time.perf_counter() - t0
    _phase("assign")
    t0 = time.perf_counter()
    for name in list(values):
        # The zero fill is fed instead of computed; pop: each value is dropped once TensorFlow holds it.
        sess.run(found[name].initializer, {found[name].initial_value: values.pop(name)})
    phases["assign_s"] = time.perf_counter() - t0
    _phase("save")
    t0 = time.perf_counter()
    _save(task, sess, source_meta)
    phases["save_s"] = time.perf_counter() - t0
    sess.close()
    peak = machine.peak_rss_bytes()
    after_def, _ = files.load(task.out)
    return {"tf_version": tf.__version__, "before": before, "after": sizes(after_def),
            "moved": moved, "left": left, "unembed_s": sum(phases.values()), "phases": phases,
            "peak_rss_bytes": peak, "tf_rss_bytes": tf_rss}


if __name__ == "__main__":
    sys.exit(protocol.main(UnembedTask, measure))
