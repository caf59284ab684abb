"""A user's graph file: a GraphDef loaded from a .pb, a .pbtxt or a SavedModel (anything else refused in one line
before much is read), and what it takes and gives, its feeds and fetches resolved and checked before any worker
starts."""

import codecs
import os
import re
import stat
from dataclasses import dataclass

from tfgraphs import machine
from tfgraphs.errors import UsageError
from tfgraphs.graphdef.consts import located_nodes, tensor_problem
from tfgraphs.spec.network import GRAPHDEF_LIMIT
from tfgraphs.spec.owngraph import Feed, graph_name
from tfgraphs.tfimport import import_tensorflow
from tfgraphs.units import fmt_bytes

TEXT_SUFFIXES = (".pbtxt", ".pbtext", ".prototxt", ".txt")
SAVED_MODEL_NAMES = ("saved_model.pb", "saved_model.pbtxt")
# TensorFlow's own rules for node names and op names (graph_constructor.cc, op_def_builder.cc).
NODE_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_.\-/>]*")
OP_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_>]*")
HEAD_BYTES = 4096   # read first, to refuse a file that cannot be protobuf before reading all of it
# What text_format.Parse (upb) peaks at over the text it parses, measured on one Const's tensor_content: 5.0 bytes
# a character of plain text (4.4 for many small nodes, 1.5 for float_val lists), and 548 bytes more for each
# backslash escape (\000 or \x00: 137 times a text made only of them). Rounded up.
TEXT_BYTES_PER_CHAR = 6
TEXT_BYTES_PER_ESCAPE = 560
TOO_DEEP = "not valid text protobuf (its messages nest deeper than the parser follows)"


def protos():
    """The protobuf modules this needs; loading them loads TensorFlow, which is all that runs of it."""
    # Its start-up chatter is held back, and replayed on stderr if the import fails.
    import_tensorflow()
    from google.protobuf import message, text_format
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import saved_model_pb2
    return graph_pb2, saved_model_pb2, text_format, message


def locate(path):
    """The file to read for path, and its size, refusing what cannot hold a graph; reads nothing yet."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file or directory") from None
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if os.path.isdir(path):
        found = [os.path.join(path, n) for n in SAVED_MODEL_NAMES if os.path.isfile(os.path.join(path, n))]
        if not found:
            raise UsageError(f"{path} is a directory without a graph: expected {' or '.join(SAVED_MODEL_NAMES)} "
                             f"in it, or pass a .pb or .pbtxt file")
        path = found[0]
        st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{path} is not a regular file (a device, FIFO or socket): give a .pb or .pbtxt file")
    if st.st_size == 0:
        raise UsageError(f"{path} is empty: a GraphDef file holds at least one node")
    if st.st_size >= GRAPHDEF_LIMIT:
        raise UsageError(f"{path} is {st.st_size:,} bytes, over 2 GiB: protobuf cannot parse a GraphDef that large, "
                         f"so it was not read")
    return path, st.st_size


def _binary_start(head):
    """Why head cannot begin binary protobuf, or None: a message starts with a field's tag, a varint whose field
    number is at least 1 and whose wire type is 0 to 5."""
    tag = 0
    for i, byte in enumerate(head[:5]):
        tag |= (byte & 0x7F) << (7 * i)
        if byte < 0x80:
            break
    else:
        return "its first bytes are no field tag"
    if tag >> 3 == 0:
        return f"its first byte 0x{head[0]:02x} starts field number 0, which no message has"
    if tag & 7 > 5:
        return f"its first field tag has wire type {tag & 7}, which protobuf does not have"
    return None


def _text_fits(path, data):
    """UsageError unless parsing data as text protobuf fits in the memory available now (the measured bound)."""
    need = TEXT_BYTES_PER_CHAR * len(data) + TEXT_BYTES_PER_ESCAPE * data.count(b"\\")
    have = machine.allocatable_bytes()
    if need > have:
        raise UsageError(f"{path} is {len(data):,} bytes of text protobuf, which would take about {fmt_bytes(need)} "
                         f"to parse but {fmt_bytes(have)} is available; convert it to binary .pb where memory allows")


def _parse(data, cls, text, text_format, message, path):
    """A parsed message, or the reason it is not one."""
    proto = cls()
    if text:
        _text_fits(path, data)
    try:
        if text:
            text_format.Parse(data.decode("utf-8"), proto)
        else:
            proto.ParseFromString(data)
    except MemoryError:
        raise UsageError(f"{path}: ran out of memory while parsing it as {'text' if text else 'binary'} protobuf; "
                         f"free some, or raise this process's limit (ulimit -v)") from None
    except RecursionError:
        # Python's text parser recurses once a nested message; binary parsing stops at protobuf's own depth limit.
        return None, TOO_DEEP
    except (message.DecodeError, text_format.ParseError, UnicodeDecodeError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, ("not valid text protobuf" if text else "not valid binary protobuf") + f" ({reason[:150]})"
    if text and not _reads_back(proto, cls, message, path):
        return None, TOO_DEEP
    return proto, None


def _reads_back(proto, cls, message, path):
    """Whether proto, parsed from text, reads back from binary protobuf, the form TensorFlow reads a graph in."""
    # Binary parsing stops at protobuf's depth limit (100 nested messages), which the text parser may pass.
    try:
        cls.FromString(proto.SerializeToString())
    except (message.DecodeError, message.EncodeError):
        return False
    except MemoryError:
        raise UsageError(f"{path}: ran out of memory while reading it back as binary protobuf; free some, "
                         "or raise this process's limit (ulimit -v)") from None
    return True


def _check(graph_def):
    """Why this parsed message is not a GraphDef, or None: random bytes can parse into nameless garbage."""
    if not graph_def.node:
        return "has no nodes"
    for n in graph_def.node:
        if not NODE_NAME.fullmatch(n.name):
            return f"has a node named {n.name[:40]!r}, which TensorFlow does not allow"
        if not OP_NAME.fullmatch(n.op):
            return f"has node {n.name[:40]!r} with op {n.op[:40]!r}, which is not an op name"
    return None


def _const_problem(graph_def):
    """Why a Const node's tensor cannot be sized, or None: TensorFlow needs a value with a dtype and no negative dim."""
    from tensorflow.core.framework import types_pb2

    for function, n in located_nodes(graph_def):
        if n.op != "Const":
            continue
        where = f"Const node {n.name[:40]!r}" + (f" in function {function[:40]!r}" if function else "")
        # `in` first: reading n.attr["value"] would add an empty one.
        if "value" not in n.attr or not n.attr["value"].HasField("tensor"):
            return f"{where} has no tensor value"
        t = n.attr["value"].tensor
        if t.dtype == types_pb2.DT_INVALID or t.dtype not in types_pb2.DataType.values():
            return f"{where} has a tensor value with no known dtype ({t.dtype})"
        problem = tensor_problem(t)
        if problem:
            return f"{where} has {problem}"
    return None


def _accept(graph_def, path):
    """graph_def, once every Const in it can be sized; a one-line UsageError otherwise."""
    problem = _const_problem(graph_def)
    if problem:
        # TensorFlow 2.21 refuses a shape that is too large or negative when it imports the graph ("is too large",
        # "is not fully defined"), and content its shape cannot hold when a run needs the node ("Cannot parse tensor").
        raise UsageError(f"{path}: {problem}, of which TensorFlow cannot make a tensor (it refuses the graph on "
                         f"import or the run that needs it); fix or regenerate the graph")
    return graph_def


def _meta_graph(model, path, tag):
    """The first meta graph, or the first one carrying tag; UsageError when none does."""
    if tag is None:
        return 0, model.meta_graphs[0]
    for i, meta in enumerate(model.meta_graphs):
        if tag in meta.meta_info_def.tags:
            return i, meta
    have = sorted({t for m in model.meta_graphs for t in m.meta_info_def.tags})
    raise UsageError(f"{path} has no meta graph tagged {tag!r}; its tags are {', '.join(have) or 'none'} (see --tag)")


def load(path, tag=None):
    """(graph_def, source) from a GraphDef file or a SavedModel (its meta graph tagged tag, else the first one);
    UsageError when it is not one. A SavedModel's source carries its "meta_graph_def"."""
    path, size = locate(path)
    name = os.path.basename(path)
    text = name.endswith(TEXT_SUFFIXES)
    data = _read(path, text)
    graph_pb2, saved_model_pb2, text_format, message = protos()
    source = {"path": path, "file_bytes": size}
    if name in SAVED_MODEL_NAMES:
        model, reason = _parse(data, saved_model_pb2.SavedModel, text, text_format, message, path)
        if model is None:
            raise UsageError(f"{path} is not a SavedModel: {reason}")
        if not model.meta_graphs:
            raise UsageError(f"{path} is a SavedModel without a meta graph, so it holds no graph")
        index, meta = _meta_graph(model, path, tag)
        problem = _check(meta.graph_def)
        if problem:
            raise UsageError(f"{path} holds no usable graph: its meta graph {index}'s GraphDef {problem}")
        source["format"] = "SavedModel" + (" (text)" if text else " (binary)")
        source["meta_graph"] = {"index": index, "of": len(model.meta_graphs), "tags": list(meta.meta_info_def.tags)}
        source["meta_graph_def"] = meta
        return _accept(meta.graph_def, path), source
    # A text GraphDef may carry any suffix, so a file that is not binary protobuf is tried as text when it decodes.
    reason = None
    for as_text in [True] if text else [False] + ([True] if _looks_like_text(data) else []):
        graph_def, reason = _parse(data, graph_pb2.GraphDef, as_text, text_format, message, path)
        problem = None if reason else _check(graph_def)
        reason = reason or (problem and f"it parses as {'text' if as_text else 'binary'} protobuf but {problem}")
        if reason is None:
            source["format"] = "GraphDef (text)" if as_text else "GraphDef (binary)"
            return _accept(graph_def, path), source
    raise UsageError(f"{path} is not a GraphDef: {reason}")


def _read(path, text):
    """The file's bytes; a file that is neither text nor binary protobuf by its first bytes is refused unread."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
        problem = None if text or _looks_like_text(head) else _binary_start(head)
        if problem:
            what = "SavedModel" if os.path.basename(path) in SAVED_MODEL_NAMES else "GraphDef"
            raise UsageError(f"{path} is not a {what}: not valid binary protobuf ({problem}) nor text; it was "
                             f"not read further")
        size = os.fstat(f.fileno()).st_size
        # Binary protobuf is read (1x) and parsed into a message that holds its tensors again (about 2x more); text
        # takes at least TEXT_BYTES_PER_CHAR a character to parse, and more for its escapes (_text_fits, once read).
        need = size * (TEXT_BYTES_PER_CHAR if text or _looks_like_text(head) else 3)
        have = machine.allocatable_bytes()
        if need > have:
            raise UsageError(f"{path} is {size:,} bytes, which would take about {fmt_bytes(need)} to read and parse "
                             f"but {fmt_bytes(have)} is available; it was not read further")
        f.seek(0)
        try:
            return f.read()
        except MemoryError:
            raise UsageError(f"{path}: ran out of memory reading it; free some, or raise this process's limit "
                             f"(ulimit -v)") from None


def _looks_like_text(data):
    """True when the file starts with printable UTF-8 text (binary protobuf is full of control bytes)."""
    try:
        sample = codecs.getincrementaldecoder("utf-8")().decode(data[:HEAD_BYTES], final=False)
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\t\n\r" for c in sample)


# What the graph takes and gives

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
        """Every input's Feed, in the order of inputs."""
        return tuple(f for _, f in self.inputs)

    @property
    def fetches(self):
        """Every output's tensor name, in the order of outputs."""
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
    """A shape as the messages print it: [2, ?, 3], or unknown."""
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
    saved_model = os.path.isdir(path) or os.path.basename(path) in SAVED_MODEL_NAMES
    graph_def, source = load(path, tag if saved_model else None)
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
