"""What a user's graph takes and gives: its feeds and fetches, resolved and checked before any worker starts."""

import os
from dataclasses import dataclass

from tfgraphs.errors import UsageError
from tfgraphs.graphdef import files
from tfgraphs.graphdef.consts import located_nodes
from tfgraphs.spec.owngraph import Feed, graph_name
from tfgraphs.tfimport import import_tensorflow

# Nodes nothing consumes that are not results: they run for their effect on state.
NOT_RESULTS = {"NoOp", "Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp",
               "AssignSubVariableOp", "SaveV2", "RestoreV2", "MergeV2Checkpoints", "VarHandleOp", "VariableV2"}


@dataclass(frozen=True)
class Interface:
    """A graph file and how to run it: feeds (with full shapes) and fetches, each under the key it is known by."""

    path: str
    name: str              # the file or folder name, which rows show
    format: str
    tag: str | None        # set for a SavedModel
    signature: str | None  # the SavedModel signature the feeds or fetches came from, if any
    inputs: tuple          # ((key, Feed), ...)
    outputs: tuple         # ((key, tensor name), ...)
    graph_def: object      # the GraphDef read, for the parent's sizing; never sent to a worker

    @property
    def feeds(self):
        return tuple(f for _, f in self.inputs)

    @property
    def fetches(self):
        return tuple(t for _, t in self.outputs)


VARIABLE_OPS = {"VariableV2", "VarHandleOp", "Variable"}


def _checkpoint_check(graph_def, saved_model_pb):
    """Refuse a SavedModel whose graph holds variables when its checkpoint is not there to restore them from."""
    folder = os.path.dirname(saved_model_pb)
    index = os.path.join(folder, "variables", "variables.index")
    if any(n.op in VARIABLE_OPS for n in graph_def.node) and not os.path.exists(index):
        raise UsageError(f"{folder} holds variables but no checkpoint to restore them from "
                         f"(variables/variables.index is missing)")


def _op_check(graph_def, path):
    """Refuse a graph using an op this TensorFlow does not have (a custom op), naming it."""
    tf = import_tensorflow()
    from tensorflow.python.framework import op_def_registry

    functions = {f.signature.name for f in graph_def.library.function}
    for function, n in located_nodes(graph_def):
        if n.op not in functions and op_def_registry.get(n.op) is None:
            where = f" in function {function!r}" if function else ""
            raise UsageError(f"{path}: node {n.name!r}{where} uses op {n.op!r}, which TensorFlow {tf.__version__} "
                             f"does not have (a custom op?); it cannot be run here")


def _placeholders(graph_def):
    """{key: (tensor, dtype enum, TensorShapeProto)} of the graph's Placeholder nodes."""
    return {n.name: (n.name + ":0", n.attr["dtype"].type, n.attr["shape"].shape)
            for n in graph_def.node if n.op == "Placeholder"}


def _signature(source, name, path):
    """The SavedModel's signature `name`, or None when it has no signatures at all."""
    meta = source.get("meta_graph_def")
    if meta is None or not meta.signature_def:
        return None
    if name not in meta.signature_def:
        raise UsageError(f"{path} has no signature {name!r}; it has {', '.join(sorted(meta.signature_def))} "
                         f"(see --signature)")
    return meta.signature_def[name]


def _feed(key, tensor, dtype_enum, shape, given, path, runs=True):
    """The Feed for one input, with unknown dimensions taken from --feed; UsageError when one is left unknown.

    When the graph will not run (runs=False), unknown dimensions stay -1 (an unknown rank, no dimensions).
    """
    tf = import_tensorflow()
    dtype = tf.dtypes.as_dtype(dtype_enum)
    if not runs:
        return Feed(tensor, dtype.name, tuple(-1 if d.size < 0 else d.size for d in shape.dim))
    if dtype == tf.string or not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
        raise UsageError(f"{path}: input {key!r} is {dtype.name}; only numbers and booleans can be fed")
    known = None if shape.unknown_rank else [d.size for d in shape.dim]
    dims = given.get(key, given.get(tensor))
    if dims is not None:
        if known is not None and (len(dims) != len(known) or any(k >= 0 and k != d for k, d in zip(known, dims))):
            raise UsageError(f"--feed {key}={','.join(map(str, dims))} does not fit its shape "
                             f"{_shape_text(known)}")
        known = list(dims)
    if known is None or any(d < 0 for d in known):
        raise UsageError(f"{path}: input {key!r} has shape {_shape_text(known)}; give every dimension with "
                         f"--feed {key}=D1,D2,...")
    return Feed(tensor, dtype.name, tuple(known))


def _shape_text(dims):
    return "unknown" if dims is None else "[" + ", ".join("?" if d < 0 else str(d) for d in dims) + "]"


def _default_fetches(graph_def):
    """(node name, tensor) of every node nothing consumes, leaving out NoOps, assignments and output-less ops."""
    from tensorflow.python.framework import op_def_registry

    consumed = {i.lstrip("^").split(":")[0] for n in graph_def.node for i in n.input}
    out = []
    for n in graph_def.node:
        op_def = op_def_registry.get(n.op)
        if n.name in consumed or n.op in NOT_RESULTS or op_def is None or not op_def.output_arg:
            continue
        out.append((n.name, n.name + ":0"))
    return tuple(out)


def _named_fetches(graph_def, names, path):
    """(name, tensor) for each --fetch NAME or NAME:K; UsageError for a node the graph does not have."""
    nodes = {n.name: n for n in graph_def.node}
    out = []
    for name in names:
        node, _, index = name.partition(":")
        if node not in nodes:
            raise UsageError(f"unknown fetch {name!r}: {path} has no node {node!r}")
        outputs = _output_count(nodes[node])
        if index and not (index.isdecimal() and (outputs is None or int(index) < outputs)):
            raise UsageError(f"unknown fetch {name!r}: {node} ({nodes[node].op}) has "
                             f"{outputs if outputs is not None else 'no numbered'} output"
                             f"{'' if outputs == 1 else 's'}, numbered from 0")
        out.append((name, name if index else name + ":0"))
    return tuple(out)


def _output_count(node):
    """How many outputs the node's op gives, when each output arg is a single tensor; None when it depends on attrs."""
    from tensorflow.python.framework import op_def_registry

    op_def = op_def_registry.get(node.op)
    if op_def is None or any(a.number_attr or a.type_list_attr for a in op_def.output_arg):
        return None
    return len(op_def.output_arg)


def _inputs(graph_def, sig, dims, path, runs):
    """((key, Feed), ...) from the signature's inputs, or the graph's placeholders without one."""
    if sig is not None:
        found = {k: (i.name, i.dtype, i.tensor_shape) for k, i in sig.inputs.items()}
    else:
        found = _placeholders(graph_def)
    tensors = {t: k for k, (t, _, _) in found.items()}
    unknown = [k for k in dims if k not in found and k not in tensors]
    if unknown:
        raise UsageError(f"unknown feed {unknown[0]!r}; the inputs are {', '.join(sorted(found)) or 'none'}")
    return tuple((k, _feed(k, t, d, s, dims, path, runs)) for k, (t, d, s) in sorted(found.items()))


def resolve(path, tag="serve", signature="serving_default", dims=None, fetches=(), runs=True):
    """The Interface of the graph at path; UsageError (one line) for anything that keeps it from running (or, with
    runs=False, from being rewritten: then inputs need no full shape)."""
    dims = dict(dims or {})
    saved_model = os.path.isdir(path) or os.path.basename(path) in files.SAVED_MODEL_NAMES
    graph_def, source = files.load(path, tag if saved_model else None)
    _op_check(graph_def, path)
    if saved_model:
        _checkpoint_check(graph_def, source["path"])
    sig = _signature(source, signature, path) if saved_model else None
    inputs = _inputs(graph_def, sig, dims, path, runs)
    if fetches:
        outputs = _named_fetches(graph_def, fetches, path)
    elif sig is not None and sig.outputs:
        outputs = tuple((k, i.name) for k, i in sorted(sig.outputs.items()))
    elif not inputs:
        raise UsageError(f"{path} has no placeholders to feed and no --fetch was given: name what to run with "
                         f"--fetch NAME")
    else:
        outputs = _default_fetches(graph_def)
    if not outputs:
        raise UsageError(f"{path}: every node is consumed or runs only for its effect; name what to run with --fetch")
    return Interface(path=path, name=graph_name(path), format=source["format"], tag=tag if saved_model else None,
                     signature=signature if sig is not None else None, inputs=inputs, outputs=outputs,
                     graph_def=graph_def)
