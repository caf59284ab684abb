"""The pruning lesson: a run executes only the fetches' fan-in, counted from the step stats of traced runs."""

from tfgraphs.spec.pitfalls import PRUNING_CASES
from tfgraphs.spec import protocol
from tfgraphs.worker.runs import check_output
from tfgraphs.worker.stepstats import op_times


def pruning(tf, task, x, w):
    """relu fetched as a tensor and as an op, then an assign_add outside its fan-in, each run traced once."""
    from tfgraphs.worker.graphs import build

    v1 = tf.compat.v1
    built = build(task.variant, x, w)
    with built.graph.as_default():
        counter = v1.Variable(0, name="counter", dtype=tf.int64)
        bump = v1.assign_add(counter, 1, name="bump")
        init = v1.variables_initializer([counter])
    fetches = {PRUNING_CASES[0]: built.output, PRUNING_CASES[1]: built.output.op, PRUNING_CASES[2]: bump}
    cases = []
    with v1.Session(graph=built.graph) as sess:
        sess.run(init)
        options = v1.RunOptions(trace_level=v1.RunOptions.FULL_TRACE)
        for case, fetch in fetches.items():
            protocol.phase(case)
            meta = v1.RunMetadata()
            value = sess.run(fetch, feed_dict=built.feed, options=options, run_metadata=meta)
            if case == PRUNING_CASES[0]:
                check_output(x, w, value)
            ran = sorted({op_type for op_type, _ in op_times(meta.step_stats).values()})
            cases.append({"case": case, "kernels": ran, "returned_none": value is None,
                          "counter_after": int(sess.run(counter))})
    return {"cases": cases}
