"""The feed-alignment lesson: the same X fed from a 64-byte-aligned buffer and from one 8 bytes off it."""

import numpy as np

from tfgraphs.spec.pitfalls import ALIGNMENT_CASES
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
    """tf.size(X) fed each copy --steps times, after one untimed run; the addresses are recorded."""
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
        # tf.size needs no data, so what a run costs beyond the executor is getting the feed in.
        size = tf.size(xp, out_type=tf.int64)
    cases = []
    with v1.Session(graph=graph) as sess:
        for case, offset in zip(ALIGNMENT_CASES, (0, 8)):
            fed = at_offset(x, offset)
            assert sess.run(size, {xp: fed}) == x.size, "tf.size disagrees with NumPy"
            timed, _ = timed_case(case, lambda: sess.run(size, {xp: fed}), task.steps)
            # What one copy of these bytes costs here, for the reader to set beside the difference.
            copied, _ = timed_case("copy", lambda: np.array(fed, copy=True), 3)
            cases.append({**timed, "address_mod_64": fed.ctypes.data % ALIGN, "copy_s": copied["seconds"]})
    return {"cases": cases}
