"""Op types as TensorFlow's graphs and step stats name them: oneDNN and Grappler rename the network's kernels."""

import re

NETWORK_OPS = ("Conv2D", "AvgPool", "Relu")
# _MklNativeConv2D, _MklConv2D (oneDNN), _FusedConv2D (Grappler's remapper) are each a Conv2D that ran.
_RENAMED = r"_(?:Mkl|Native|Fused)+"


def named(op, op_types):
    """'Conv2D', or 'Conv2D (as _MklNativeConv2D)' when the graph that ran holds op under other names: what ran."""
    renamed = sorted(t for t in op_types or () if t != op and runs_as(t, op))
    return f"{op} (as {', '.join(renamed)})" if renamed else op


def runs_as(kernel_type, op):
    """True when a node or kernel of this type computes `op`, under its own name or a oneDNN or fused one."""
    return kernel_type == op or re.fullmatch(_RENAMED + re.escape(op), kernel_type or "") is not None
