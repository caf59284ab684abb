"""The executor-leak lesson: every new fetch list gets an executor the session keeps, and what each one holds."""

import time

from tfgraphs import machine
from tfgraphs.spec.pitfalls import LEAK_CASES, LEAKED_SETS
from tfgraphs.spec import protocol


def executor_leak(tf, task, x, w):
    """Run every set of LEAKED_SETS as targets, each a new signature; then the first set again."""
    from tfgraphs.worker.graphs import build

    built = build(task.variant, x, w)
    # Ops as targets: nothing is fetched back, so what stays resident is what the session keeps, not the result.
    signatures = [[built.graph.get_operation_by_name(name) for name in names] for names in LEAKED_SETS]
    cases = []
    with tf.compat.v1.Session(graph=built.graph) as sess:
        before = machine.rss_bytes()
        for name, combo in zip(LEAK_CASES, signatures + [signatures[0]]):
            protocol.phase(name)
            t0 = time.perf_counter()
            sess.run(combo, feed_dict=built.feed)
            seconds = time.perf_counter() - t0
            cases.append({"case": name, "seconds": seconds, "rss_bytes": [before, machine.rss_bytes()]})
            before = cases[-1]["rss_bytes"][1]
    return {"cases": cases}
