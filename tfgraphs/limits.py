"""Checks made before any worker starts: the 2 GiB GraphDef ceiling and the machine's memory."""

from tfgraphs import memory, network
from tfgraphs.variants import VARIANTS

# TensorFlow refuses a tensor, a NodeDef or a GraphDef of 2**31 bytes or more (tensor_util.py, ops.py).
GRAPHDEF_LIMIT = 1 << 31

# TensorFlow's own resident memory once imported; the copies of X at the peak come from each Variant.
TF_BASELINE_BYTES = 700 * 2**20


class UsageError(Exception):
    """Bad input from the user: one line on stderr, exit status 2."""


def largest_batch(bytes_per_example, overhead_bytes=0):
    """Largest N with N * bytes_per_example + overhead_bytes under the 2 GiB limit."""
    return (GRAPHDEF_LIMIT - 1 - overhead_bytes) // bytes_per_example


def max_embedded_batch(dtype, copies=1):
    """Largest batch TensorFlow lets you embed: its tensor check alone, before the graph's other nodes count.

    For the seed network the other nodes take under 4 KiB, less than one example in every dtype, so the GraphDef
    limit falls on the same batch (why.max_batch computes it from the measured bytes).
    """
    return largest_batch(copies * network.example_bytes(dtype))


def embedded_fits(batch, dtype, copies=1):
    """True when X at this batch can be embedded `copies` times in a GraphDef."""
    return batch <= max_embedded_batch(dtype, copies)


def estimate_peak_bytes(variant, batch, dtype):
    """A rough upper estimate of one worker's peak memory, for refusing runs the machine cannot hold."""
    # Only a pre-flight guard against runs the machine cannot hold; every run reports its measured peak.
    copies = VARIANTS[variant].peak_copies
    return TF_BASELINE_BYTES + copies * network.data_bytes(batch, dtype) + network.activation_bytes(batch, dtype)


def check_memory(variants, batch, dtype, force=False):
    """Raise UsageError if the hungriest variant's estimate exceeds the memory available now."""
    if force or not variants:
        return
    need, name = max((estimate_peak_bytes(v, batch, dtype), v) for v in variants)
    have = memory.available_bytes()
    if need > have:
        raise UsageError(
            f"variant {name} at batch {batch} ({dtype}) is estimated to need {need / 1e9:.1f} GB "
            f"but {have / 1e9:.1f} GB is available; use a smaller --batch, or --force to run anyway")


def choose(text, known, what):
    """Parse a comma-separated list of names, each one of `known`, keeping order and dropping repeats."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise UsageError(f"no {what} given")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown {what} {', '.join(unknown)}; choose from {', '.join(known)}")
    return list(dict.fromkeys(names))
