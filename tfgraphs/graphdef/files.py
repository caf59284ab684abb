"""Load a GraphDef from a .pb, a .pbtxt or a SavedModel, refusing anything else in one line before reading much."""

import codecs
import os
import re
import stat

from tfgraphs import machine
from tfgraphs.errors import UsageError
from tfgraphs.spec.limits import GRAPHDEF_LIMIT
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
    except (message.DecodeError, text_format.ParseError, UnicodeDecodeError, ValueError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, ("not valid text protobuf" if text else "not valid binary protobuf") + f" ({reason[:150]})"
    return proto, None


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
    from tfgraphs.graphdef.consts import located_nodes, tensor_problem

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
