"""The two 2 GiB limits and a worker's memory, as arithmetic on the network's sizes.

TensorFlow has two different 2 GiB limits that both concern embedded data:
- the tensor limit: a single tensor of 2 GiB or more is refused when the constant is made (make_tensor_proto);
- the GraphDef limit: a GraphDef of more than 2 GiB cannot be serialized (as_graph_def().SerializeToString(),
  write_graph, Saver's .meta file, a remote session). A local session never serializes its graph.
"""

from tfgraphs.spec import network
from tfgraphs.spec.variants import VARIANTS

TENSOR_LIMIT = 1 << 31     # make_tensor_proto refuses nbytes >= 2**31 (tensor_util.py)
GRAPHDEF_LIMIT = 1 << 31   # protobuf cannot serialize a message of 2**31 bytes or more
TENSOR = "2 GiB single-tensor limit, checked when the constant is made"
GRAPHDEF = ("2 GiB serialized-GraphDef limit, met wherever the graph becomes one protobuf: as_graph_def() itself, "
            "SerializeToString, write_graph, a Saver's .meta and a remote session")

# The classic constant folder keeps a folded result of at most this many bytes (ConstantFoldingOptions'
# max_constant_size_in_bytes in common_runtime/constant_folding.h); graph_optimizer.cc replaces it by
# OptimizerOptions.max_folded_constant_in_bytes when that is set above 0.
FOLDED_CONSTANT_BYTES = 10 * 2**20
FOLD_KNOB = "OptimizerOptions.max_folded_constant_in_bytes"

# TensorFlow's own resident memory once imported; the peak in units of X's bytes comes from each Variant.
TF_BASELINE_BYTES = 700 * 2**20


def largest_batch(bytes_per_example, overhead_bytes=0):
    """Largest N with N * bytes_per_example + overhead_bytes under 2 GiB."""
    return (GRAPHDEF_LIMIT - 1 - overhead_bytes) // bytes_per_example


def max_tensor_batch(dtype):
    """Largest batch whose X, as one tensor, TensorFlow accepts when the constant is made."""
    return (TENSOR_LIMIT - 1) // network.example_bytes(dtype)


def max_graphdef_batch(dtype, copies=1, overhead_bytes=0):
    """Largest batch whose GraphDef, holding X `copies` times plus overhead_bytes, can still be serialized."""
    return largest_batch(copies * network.example_bytes(dtype), overhead_bytes)


def max_embedded_batch(dtype, copies=1):
    """Largest batch X can be embedded `copies` times at: the lower of the tensor and the GraphDef limit.

    For the seed network the other nodes take under 4 KiB, less than one example in every dtype, so with one copy
    both limits fall on the same batch; with two copies (dataset-embedded) the GraphDef limit comes first.
    """
    return min(max_tensor_batch(dtype), max_graphdef_batch(dtype, copies))


def embedded_fits(batch, dtype, copies=1):
    """True when X at this batch can be embedded `copies` times and the GraphDef still serialized."""
    return batch <= max_embedded_batch(dtype, copies)


def refusal(variant, batch, dtype, copies=None, label=None):
    """Why `variant` (or `label`, X held `copies` times) cannot be built at this batch, naming the limit; or None."""
    copies = VARIANTS[variant].copies_in_graph if copies is None else copies
    name = label or variant
    if not copies or embedded_fits(batch, dtype, copies):
        return None
    size = network.data_bytes(batch, dtype)
    if batch > max_tensor_batch(dtype):
        return (f"{name}: X would be one tensor of {size:,} bytes, past the {TENSOR}; the largest {dtype} batch "
                f"it accepts is {max_tensor_batch(dtype):,}")
    return (f"{name}: X would be {size:,} bytes, held {copies} times, past the {GRAPHDEF}, which this tool "
            f"needs to measure graph bytes; the largest {dtype} batch that fits is "
            f"{max_graphdef_batch(dtype, copies):,} (each tensor alone is under the single-tensor limit up to "
            f"{max_tensor_batch(dtype):,})")


def estimate_peak_bytes(variant, batch, dtype):
    """A rough upper estimate of one worker's peak memory, for refusing runs the machine cannot hold."""
    # Only a pre-flight guard against runs the machine cannot hold; every run reports its measured peak.
    multiple = VARIANTS[variant].peak_multiple
    return TF_BASELINE_BYTES + multiple * network.data_bytes(batch, dtype) + network.activation_bytes(batch, dtype)
