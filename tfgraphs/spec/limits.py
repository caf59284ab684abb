"""The 2 GiB GraphDef ceiling and a worker's memory, as arithmetic on the network's sizes."""

from tfgraphs.spec import network
from tfgraphs.spec.variants import VARIANTS

# TensorFlow refuses a tensor, a NodeDef or a GraphDef of 2**31 bytes or more (tensor_util.py, ops.py).
GRAPHDEF_LIMIT = 1 << 31

# TensorFlow's own resident memory once imported; the peak in units of X's bytes comes from each Variant.
TF_BASELINE_BYTES = 700 * 2**20


def largest_batch(bytes_per_example, overhead_bytes=0):
    """Largest N with N * bytes_per_example + overhead_bytes under the 2 GiB limit."""
    return (GRAPHDEF_LIMIT - 1 - overhead_bytes) // bytes_per_example


def max_embedded_batch(dtype, copies=1):
    """Largest batch TensorFlow lets you embed: its tensor check alone, before the graph's other nodes count.

    For the seed network the other nodes take under 4 KiB, less than one example in every dtype, so the GraphDef
    limit falls on the same batch (explain.compare.max_batch computes it from the measured bytes).
    """
    return largest_batch(copies * network.example_bytes(dtype))


def embedded_fits(batch, dtype, copies=1):
    """True when X at this batch can be embedded `copies` times in a GraphDef."""
    return batch <= max_embedded_batch(dtype, copies)


def refusal(variant, batch, dtype):
    """Why `variant` cannot be built at this batch (its copies of X would pass 2 GiB), or None."""
    copies = VARIANTS[variant].copies_in_graph
    if not copies or embedded_fits(batch, dtype, copies):
        return None
    held = f"X would be {network.data_bytes(batch, dtype):,} bytes" + (f", held {copies} times," if copies > 1 else "")
    return (f"{variant}: {held} past the 2 GiB GraphDef limit; the largest {dtype} batch that fits "
            f"is {max_embedded_batch(dtype, copies):,}")


def estimate_peak_bytes(variant, batch, dtype):
    """A rough upper estimate of one worker's peak memory, for refusing runs the machine cannot hold."""
    # Only a pre-flight guard against runs the machine cannot hold; every run reports its measured peak.
    multiple = VARIANTS[variant].peak_multiple
    return TF_BASELINE_BYTES + multiple * network.data_bytes(batch, dtype) + network.activation_bytes(batch, dtype)
