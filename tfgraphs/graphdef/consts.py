"""The tensors a GraphDef embeds: every node located, Const bytes counted, contents stripped."""

import math

from tfgraphs.tfimport import import_tensorflow


def located_nodes(graph_def):
    """(function name, or None for the graph itself, node) for every node, function bodies included."""
    for n in graph_def.node:
        yield None, n
    for fn in graph_def.library.function:
        for n in fn.node_def:
            yield fn.signature.name, n


def tensor_bytes(tensor_proto):
    """Bytes a TensorProto holds once expanded: elements x itemsize (a string tensor's as string_bytes says)."""
    tf = import_tensorflow()
    elements = math.prod(d.size for d in tensor_proto.tensor_shape.dim)
    dtype = tf.dtypes.as_dtype(tensor_proto.dtype)
    if dtype == tf.string:
        return string_bytes(tensor_proto, elements)
    return elements * dtype.size


# TensorFlow's tstring (tsl/platform/ctstring_internal.h): 24 bytes an element, text of up to 22 bytes held inside
# them, longer text on the heap.
TSTRING_BYTES = 24
TSTRING_INLINE = 22


def string_bytes(tensor_proto, elements):
    """Bytes a string TensorProto takes once TensorFlow makes its tensor: a tstring an element, and the heap bytes of
    each longer text; elements past the listed values copy the last one (tensor.cc, FromProtoField)."""
    if tensor_proto.tensor_content:
        return elements * TSTRING_BYTES + len(tensor_proto.tensor_content)
    listed = tensor_proto.string_val
    shown = min(len(listed), elements)
    heap = sum(len(listed[i]) for i in range(shown) if len(listed[i]) > TSTRING_INLINE)
    if 0 < shown < elements and len(listed[shown - 1]) > TSTRING_INLINE:
        heap += (elements - shown) * len(listed[shown - 1])
    return elements * TSTRING_BYTES + heap


def varint_bytes(n):
    """Bytes of the non-negative integer n as a protobuf varint."""
    return max(1, (n.bit_length() + 6) // 7)


def _grown(size, delta):
    """How much a length-delimited field holding a size-byte message grows when that message grows by delta."""
    return delta + varint_bytes(size + delta) - varint_bytes(size)


def content_bytes(node, length):
    """Bytes a length-byte tensor_content adds to a GraphDef whose top-level Const node holds it, now cleared."""
    # Field by field, each with a one-byte tag: TensorProto.tensor_content (4) in AttrValue.tensor (8) in the map
    # entry attr["value"] (key 1, value 2) in NodeDef.attr (5) in GraphDef.node (1).
    value = node.attr["value"]
    tensor, attr = value.tensor.ByteSize(), value.ByteSize()
    entry = (1 + varint_bytes(len(b"value")) + len(b"value")) + (1 + varint_bytes(attr) + attr)
    grows = 1 + varint_bytes(length) + length            # the tensor, by its tensor_content field
    for size in (tensor, attr, entry, node.ByteSize()):  # each message, as held by the field one level up
        grows = _grown(size, grows)
    return grows


def stored_values(tensor_proto):
    """How many values a TensorProto lists: from tensor_content when it has it, else the longest *_val field."""
    tf = import_tensorflow()
    if tensor_proto.tensor_content:
        return len(tensor_proto.tensor_content) // tf.dtypes.as_dtype(tensor_proto.dtype).size
    # half and bfloat16 share half_val, complex types list two numbers per value.
    pair = 2 if tensor_proto.dtype in (tf.complex64.as_datatype_enum, tf.complex128.as_datatype_enum) else 1
    return max((len(v) for f, v in tensor_proto.ListFields() if f.name.endswith("_val")), default=0) // pair


# TensorFlow's own bound on a shape (TensorShape): fewer than 2**63 elements.
MAX_ELEMENTS = 2**63 - 1


def tensor_problem(tensor_proto):
    """Why TensorFlow cannot make a tensor of this TensorProto, or None: a negative or oversized shape, or a
    tensor_content of another length than elements x itemsize (more listed *_val values than elements are
    accepted: TensorFlow takes the first ones)."""
    tf = import_tensorflow()
    dims = [d.size for d in tensor_proto.tensor_shape.dim]
    if any(d < 0 for d in dims):
        return f"a negative dimension ({next(d for d in dims if d < 0)}) in its tensor's shape"
    elements = math.prod(dims)
    if elements > MAX_ELEMENTS:
        return f"a shape of {elements:.3g} elements, more than TensorFlow's 2**63 - 1"
    dtype = tf.dtypes.as_dtype(tensor_proto.dtype)
    content = len(tensor_proto.tensor_content)
    if content and dtype.size and content != elements * dtype.size:
        return (f"{content:,} bytes of tensor_content where its shape {dims} of {dtype.name} holds "
                f"{elements * dtype.size:,}")
    return None


def is_elided(tensor_proto):
    """True when a tensor lists fewer values than its shape holds, so TensorFlow repeats the last one."""
    return stored_values(tensor_proto) < math.prod(d.size for d in tensor_proto.tensor_shape.dim)


def const_nodes(graph_def):
    """(node, bytes) for every Const node, including those inside function definitions."""
    return [(n, tensor_bytes(n.attr["value"].tensor)) for _, n in located_nodes(graph_def) if n.op == "Const"]


def const_bytes(graph_def):
    """Total bytes held in Const tensors."""
    return sum(size for _, size in const_nodes(graph_def))


def strip_constants(graph_def):
    """Replace every tensor's contents with nothing, in place, keeping its dtype and shape."""
    def strip(t):
        for fd in t.DESCRIPTOR.fields:
            if fd.name == "tensor_content" or fd.name.endswith("_val"):
                t.ClearField(fd.name)

    for _, n in located_nodes(graph_def):
        for attr in n.attr.values():
            if attr.HasField("tensor"):
                strip(attr.tensor)
            for t in attr.list.tensor:
                strip(t)
    return graph_def
