"""Rewrite a graph's large Consts into non-trainable variables and write a TF1 SavedModel: `python -m
tfgraphs.worker.unembed --path P --out DIR --min-bytes N ...` prints one JSON document.

Each moved Const N becomes VariableV2 `N/variable`, read by an Identity still named N, so every consumer, control
edge and colocation of N is untouched; its value goes to the checkpoint instead of the GraphDef.
"""

import errno
import os
import sys
import time

from tfgraphs import machine, processes
from tfgraphs.graphdef import files
from tfgraphs.graphdef.consts import const_nodes, content_bytes, located_nodes, tensor_bytes
from tfgraphs.spec import owngraph
from tfgraphs.spec.owngraph import UnembedTask
from tfgraphs.tfimport import import_tensorflow
LEFT_IN_FUNCTION = ("inside function {function!r}: a function body cannot read a graph variable without a new "
                    "input to the function, so it stays a Const")


def sizes(graph_def, taken=0):
    """The GraphDef's bytes (plus taken: those of contents cleared from it), its Const bytes and largest Const."""
    held = [size for _, size in const_nodes(graph_def)]
    return {"graph_bytes": graph_def.ByteSize() + taken, "const_bytes": sum(held),
            "largest_const_bytes": max(held, default=0)}


def choose(graph_def, min_bytes):
    """(moved, left): top-level Consts of at least min_bytes, and those inside function bodies, with the reason."""
    tf = import_tensorflow()
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


def take_values(graph_def, moved):
    """({name: value} of the moved Consts, bytes their contents took in the GraphDef), each content cleared once taken."""
    # The bytes are counted per field as each content is cleared: protobuf's ByteSize would serialize the whole
    # message, two more copies of the table at the peak.
    import numpy as np

    tf = import_tensorflow()
    values, taken = {}, 0
    for n, _ in moved:
        t = n.attr["value"].tensor
        content = t.tensor_content   # a new bytes object: the array is built over it without another copy
        if not content:
            values[n.name] = tf.make_ndarray(t)
            continue
        t.ClearField("tensor_content")
        taken += content_bytes(n, len(content))
        dtype = tf.dtypes.as_dtype(t.dtype).as_numpy_dtype
        values[n.name] = np.frombuffer(content, dtype=dtype).reshape([d.size for d in t.tensor_shape.dim])
    return values, taken


def rewrite(graph_def, moved):
    """Turn each moved Const into Identity(N/variable) in place, reading N/variable, a VariableV2 of its shape."""
    for n, _ in moved:
        t = n.attr["value"].tensor
        dtype, shape, device = t.dtype, type(t.tensor_shape)(), n.device
        shape.CopyFrom(t.tensor_shape)
        n.op = "Identity"
        n.ClearField("attr")
        controls = [i for i in n.input if i.startswith("^")]
        del n.input[:]
        n.input.extend([n.name + "/variable", *controls])
        n.attr["T"].type = dtype
        var = graph_def.node.add(name=n.name + "/variable", op="VariableV2", device=device)
        var.attr["dtype"].type = dtype
        var.attr["shape"].shape.CopyFrom(shape)
        var.attr["container"].s = var.attr["shared_name"].s = b""


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
        processes.phase("restore the original variables")
        with graph.as_default():
            saver.restore(sess, checkpoint)
    return sess


def _fed_saver(tf, feeds):
    """A Saver whose save feeds `feeds` to its own SaveV2: the moved values reach the checkpoint, never a variable."""

    class FedSaver(tf.compat.v1.train.Saver):
        def save(self, sess, save_path, *args, **kwargs):
            if self.saver_def is None:   # no variable at all: nothing to write, as Saver.save does
                return None
            # Saver.save's own run, plus the feeds: a fed VariableV2 needs no initializer and holds no copy.
            sess.run(self.saver_def.save_tensor_name, {self.saver_def.filename_tensor_name: save_path, **feeds})
            return save_path
    return FedSaver


def _save(task, sess, source_meta, feeds):
    """Write the SavedModel to task.out (a folder that must not exist yet): every global variable, fed or restored."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    with sess.graph.as_default():
        saver = _fed_saver(tf, feeds)(v1.global_variables(), sharded=False, allow_empty=True)
        serve = [v1.saved_model.tag_constants.SERVING]
        tags = list(source_meta.meta_info_def.tags) if source_meta is not None else serve
        builder = v1.saved_model.builder.SavedModelBuilder(task.out)
        builder.add_meta_graph_and_variables(sess, tags, signatures(task, sess.graph, source_meta), saver=saver)
        feeds.clear()   # the checkpoint is written: drop the values before the rest is serialized
        builder.save()


NO_SPACE = os.strerror(errno.ENOSPC)   # "No space left on device"


def _compact(graph_def, source_meta):
    """Fresh copies of the rewritten graph (and meta graph): the parsed ones still hold the moved bytes in memory."""
    if source_meta is not None:
        meta = type(source_meta).FromString(source_meta.SerializeToString())
        return meta.graph_def, meta
    return type(graph_def).FromString(graph_def.SerializeToString()), None


def measure(task):
    """Read, rewrite and save, each phase timed; the sizes before and after, what moved or stayed."""
    processes.phase("import tensorflow")
    tf = import_tensorflow()
    tf_rss = machine.rss_bytes()   # TensorFlow's own footprint, which the rewrite's memory is measured above
    phases = {}
    processes.phase("read")
    t0 = time.perf_counter()
    graph_def, source = files.load(task.path, task.tag)
    phases["read_s"] = time.perf_counter() - t0
    moved, left = choose(graph_def, task.min_bytes)
    processes.phase("rewrite")
    t0 = time.perf_counter()
    values, taken = take_values(graph_def, moved)
    before = sizes(graph_def, taken)
    rewrite(graph_def, moved)
    # Only the small rewritten graph is kept: the parsed file (and its moved nodes) is freed before TensorFlow runs.
    moved = [found for _, found in moved]
    graph_def, source_meta = _compact(graph_def, source.get("meta_graph_def"))
    del source
    sess = _import(task, tf, graph_def, source_meta)
    del graph_def
    variables(sess.graph, list(values))
    phases["rewrite_s"] = time.perf_counter() - t0
    processes.phase("save")
    t0 = time.perf_counter()
    try:
        _save(task, sess, source_meta, {name + "/variable:0": values.pop(name) for name in list(values)})
    except tf.errors.ResourceExhaustedError as exc:
        # TensorFlow reports a full disk as memory exhausted; its message names the file and the OS's reason.
        if NO_SPACE not in exc.message:
            raise
        raise OSError(errno.ENOSPC, NO_SPACE, task.out) from None
    phases["save_s"] = time.perf_counter() - t0
    sess.close()
    peak = machine.peak_rss_bytes()
    after_def, _ = files.load(task.out)
    return {"tf_version": tf.__version__, "before": before, "after": sizes(after_def),
            "moved": moved, "left": left, "unembed_s": sum(phases.values()), "phases": phases,
            "peak_rss_bytes": peak, "tf_rss_bytes": tf_rss}


if __name__ == "__main__":
    sys.exit(processes.main(UnembedTask, measure))
