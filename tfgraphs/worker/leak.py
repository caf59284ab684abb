"""The executor-leak lesson: every new fetch list gets an executor the session keeps, and what each one holds."""

import itertools
import time

from tfgraphs import machine
from tfgraphs.spec.pitfalls import LEAK_AGAIN, LEAKED_TENSORS
from tfgraphs.worker import protocol


def executor_leak(tf, task, x, w):
    """Run every non-empty set of LEAKED_TENSORS as targets, each a new signature; then the first set again."""
    from tfgraphs.worker.graphs import build

    built = build(task.variant, x, w)
    ops = [built.graph.get_operation_by_name(name) for name in LEAKED_TENSORS]
    # Ops as targets: nothing is fetched back, so what stays resident is what the session keeps, not the result.
    signatures = [combo for k in range(1, len(ops) + 1) for combo in itertools.combinations(ops, k)]
    cases = []
    with tf.compat.v1.Session(graph=built.graph) as sess:
        before = machine.rss_bytes()
        for combo in signatures + [signatures[0]]:
            again = len(cases) == len(signatures)
            name = LEAK_AGAIN if again else "[" + ", ".join(op.name for op in combo) + "]"
            protocol.phase(name)
            t0 = time.perf_counter()
            sess.run(list(combo), feed_dict=built.feed)
            seconds = time.perf_counter() - t0
            cases.append({"case": name, "seconds": seconds, "rss_bytes": [before, machine.rss_bytes()]})
            before = cases[-1]["rss_bytes"][1]
    return {"cases": cases}
