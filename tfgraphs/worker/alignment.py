"""The feed-alignment lesson: the same X fed from a 64-byte-aligned buffer and from one 8 bytes off it."""

import statistics
import time

import numpy as np

from tfgraphs.spec.pitfalls import ALIGNMENT_CASES
from tfgraphs.spec import protocol
from tfgraphs.worker.runs import timed_case

ALIGN = 64   # bytes; TensorFlow's CPU allocator aligns its own buffers so


def at_offset(x, offset):
    """A copy of x whose data starts `offset` bytes past a 64-byte boundary."""
    raw = np.empty(x.nbytes + 2 * ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGN + offset
    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def feed_alignment(tf, task, x, w):
    """tf.size(X) fed each copy --steps times, the two copies in turns (aligned, unaligned, aligned, ...) after one
    untimed run of each, so that the i-th runs of the two are a pair; the addresses are recorded."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
        # tf.size needs no data, so what a run costs beyond the executor is getting the feed in.
        size = tf.size(xp, out_type=tf.int64)
    fed = [at_offset(x, offset) for offset in (0, 8)]
    runs = [[], []]
    with v1.Session(graph=graph) as sess:
        for buffer in fed:
            assert sess.run(size, {xp: buffer}) == x.size, "tf.size disagrees with NumPy"
        protocol.phase(" and ".join(ALIGNMENT_CASES))
        # In turns, not one block after the other: a change of load during the lesson falls on both alike.
        for _ in range(task.steps):
            for times, buffer in zip(runs, fed):
                t0 = time.perf_counter()
                sess.run(size, {xp: buffer})
                times.append(time.perf_counter() - t0)
    cases = []
    for case, buffer, times in zip(ALIGNMENT_CASES, fed, runs):
        # What one copy of these bytes costs here, for the reader to set beside the difference.
        copied, _ = timed_case("copy", lambda: np.array(buffer, copy=True), 3)
        cases.append({"case": case, "seconds": statistics.median(times), "runs_s": times,
                      "address_mod_64": buffer.ctypes.data % ALIGN, "copy_s": copied["seconds"]})
    return {"cases": cases}
