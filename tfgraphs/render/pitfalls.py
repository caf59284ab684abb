"""The pitfalls page: one table per lesson, then why (no TensorFlow here)."""

import statistics

from tfgraphs.findings.pitfalls import answer_and_findings
from tfgraphs.render.page import WIDTH, Table, failures, machine_line, page, time_unit
from tfgraphs.spec.pitfalls import GROWTH_CASES, LESSONS
from tfgraphs.units import fmt_bytes, sig3 as _sig


def header(results):
    """What ran, then where."""
    c = results.config
    return (f"pitfalls: {', '.join(c.lessons)}; batch {c.batch:,}, {c.dtype}, {c.steps} steps, seed "
            f"{c.seed}\n{machine_line(results)}")


def _table(body, headers):
    return Table(tuple(headers), tuple(tuple(row) for row in body), keys=2)


def _runs(results, lesson):
    return [r for r in results.rows if r.ok and r.lesson == lesson]


def executor_table(results):
    """Each timed case of executor-cache, per variant, in the order it ran."""
    runs = _runs(results, "executor-cache")
    if not runs:
        return None
    u, scale = time_unit([c.seconds for r in runs for c in r.cases])
    body = [[r.variant, c.case, _sig(c.seconds / scale),
             *((_sig(min(c.runs_s) / scale), _sig(max(c.runs_s) / scale), str(len(c.runs_s))) if c.runs_s
               else (None, None, "1"))] for r in runs for c in r.cases]
    legend = (f"Times in {u}, every case timed alone with perf_counter, in this order, in one session per variant "
              f"(each variant in a fresh worker). A repeat case is the median of n runs (min and max beside it). "
              f"new fetches = [relu, pool]; reordered = [pool, relu]; new feeds = relu fetched with pool fed; "
              f"make_callable = make_callable(conv, feed_list=[...]), a function that runs the session as sess.run "
              f"does, then calling it; real callable = Session._make_callable_from_options(CallableOptions), which "
              f"makes TensorFlow's own callable (DirectSession::MakeCallable), then calling it.")
    return _table(body, ["variant", "case", u, f"min {u}", f"max {u}", "n"]), legend


def growth_table(results):
    """Each growth loop: its first step, its later steps, its nodes and its memory."""
    runs = _runs(results, "graph-growth")
    if not runs:
        return None
    u, scale = time_unit([s for r in runs for c in r.cases for s in c.step_s])
    body = []
    for r in runs:
        for c in r.cases:
            later = c.step_s[1:]
            body.append([r.variant, c.case, _sig(c.step_s[0] / scale), _sig(min(later) / scale),
                         _sig(statistics.median(later) / scale), _sig(max(later) / scale), str(len(later)),
                         f"{c.nodes[0]:,}", f"{c.nodes[-1]:,}", fmt_bytes(c.rss_bytes[-1] - c.rss_bytes[0])])
    legend = (f"Times in {u}, each step timed alone (creating the op, when it does, and running it), the two loops "
              f"taking turns step by step. later = the steps after the first (n of them). nodes = the graph's "
              f"operations after the first and the last step; RSS change = what the loop's own steps after the "
              f"first added to resident memory. {GROWTH_CASES[0]} "
              f"creates tf.reduce_mean(relu) in every step; {GROWTH_CASES[1]} creates it before the loop.")
    headers = ["variant", "case", f"first {u}", f"later min {u}", f"later median {u}", f"later max {u}", "n",
               "nodes first", "nodes last", "RSS change"]
    return _table(body, headers), legend


def saved_table(results):
    """Each artifact written, its size, and whether X is in it."""
    runs = _runs(results, "saved-copies")
    if not runs:
        return None
    body = [[r.variant, c.case, f"{c.bytes:,}", "yes" if c.holds_data else "no"] for r in runs for c in r.cases]
    legend = ("bytes = the artifact as written (graph = the serialized GraphDef; checkpoint = its .index and .data "
              "files); holds X = the raw bytes of X appear in it in one piece. saver .meta = "
              "tf.compat.v1.train.Saver().export_meta_graph; frozen graph = "
              "graph_util.convert_variables_to_constants.")
    return _table(body, ["variant", "artifact", "bytes", "holds X"]), legend


def default_table(results):
    """Graph and Const bytes of a plain placeholder and of placeholder_with_default, fed or not."""
    runs = _runs(results, "placeholder-default")
    if not runs:
        return None
    u, scale = time_unit([c.seconds for r in runs for c in r.cases])
    body = [[r.variant, c.case, f"{c.graph_bytes:,}", f"{c.const_bytes:,}", _sig(c.seconds / scale)]
            for r in runs for c in r.cases]
    legend = (f"Each case in its own graph and session. graph bytes = serialized GraphDef; const bytes = bytes held "
              f"in Const tensors; first run in {u}.")
    return _table(body, ["variant", "case", "graph bytes", "const bytes", f"first run {u}"]), legend


def folding_table(results):
    """Each folding case: whether the graph that ran still computes the network, and its first and second run."""
    runs = _runs(results, "folding")
    if not runs:
        return None
    u, scale = time_unit([t for r in runs for c in r.cases for t in (c.seconds, c.later_s)])
    body = [[c.case, "no" if c.computes["Conv2D"] else "yes", ", ".join(c.replaced_by_const) or "-",
             f"{c.fetched_bytes:,}", _sig(c.seconds / scale), _sig(c.later_s / scale)]
            for r in runs for c in r.cases]
    legend = (f"Each case in its own graph and session; times in {u}, from a worker that also logs its optimizers "
              f"(TF_CPP_VMODULE), so they are not timed apart from that log. folded = no Conv2D in the partition "
              f"graphs that ran; Const made by folding = the Const nodes there that the user's graph did not hold as "
              f"Consts. whole output and scalar fetch embed "
              f"X as a Const and fetch relu or its sum; larger folder limit sets "
              f"OptimizerOptions.max_folded_constant_in_bytes; stateful input reads X from a one-shot iterator; fed "
              f"input feeds X and W to placeholders.")
    return (Table(("case", "folded", "Const made by folding", "fetched bytes", f"first {u}", f"second {u}"),
                  tuple(tuple(row) for row in body), wrap=((2, 20),)), legend)


def pruning_table(results):
    """Each fetch: the kernels its traced run executed, and the counter the assign_add bumps."""
    runs = _runs(results, "pruning")
    if not runs:
        return None
    body = [[r.variant, c.case, ", ".join(c.kernels), str(c.counter_after)] for r in runs for c in r.cases]
    legend = ("kernels = the kernel types in one FULL_TRACE run's step stats, in one session, in this order; "
              "counter = a variable that an assign_add outside relu's fan-in adds 1 to, read after each run.")
    return Table(("variant", "fetch", "kernels that ran", "counter"), tuple(tuple(row) for row in body), keys=2,
                 wrap=((2, 44),)), legend


def alignment_table(results):
    """The same feed from an aligned and an unaligned buffer: each case's runs."""
    runs = _runs(results, "feed-alignment")
    if not runs:
        return None
    u, scale = time_unit([s for r in runs for c in r.cases for s in c.runs_s or (c.seconds,)])
    body = [[r.variant, c.case, str(c.address_mod_64), _sig(c.seconds / scale), _sig(min(c.runs_s) / scale),
             _sig(max(c.runs_s) / scale), str(len(c.runs_s))] for r in runs for c in r.cases]
    legend = (f"Times in {u}: sess.run(tf.size(X), {{X: x}}), each run timed alone, the two feeds taking turns "
              f"run by run, after one untimed run of each. "
              f"address % 64 = where x's data starts past a 64-byte boundary.")
    return _table(body, ["variant", "case", "address % 64", f"median {u}", f"min {u}", f"max {u}", "n"]), legend


def leak_table(results):
    """Each new set of targets in one session: its run and what it added to resident memory."""
    runs = _runs(results, "executor-leak")
    if not runs:
        return None
    u, scale = time_unit([c.seconds for r in runs for c in r.cases])
    body = [[r.variant, c.case, _sig(c.seconds / scale), fmt_bytes(c.rss_bytes[1] - c.rss_bytes[0])]
            for r in runs for c in r.cases]
    legend = (f"Times in {u}, one session per variant, each set of ops run as targets once, in this order (nothing "
              f"fetched back). RSS change = resident memory after the run minus before it.")
    return _table(body, ["variant", "targets", f"run {u}", "RSS change"]), legend


# Each lesson's table, by its name in spec.pitfalls, which also titles its section.
TABLES = {
    "executor-cache": executor_table,
    "graph-growth": growth_table,
    "saved-copies": saved_table,
    "placeholder-default": default_table,
    "folding": folding_table,
    "pruning": pruning_table,
    "feed-alignment": alignment_table,
    "executor-leak": leak_table,
}


def render(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The pitfalls page of results, as text, fitted to width (None: one wide table per section)."""
    head, ok = header(results), any(r.ok for r in results.rows)
    sections = []
    for lesson in LESSONS.values():
        found = TABLES[lesson.name](results)
        if found is not None:
            sections.append((lesson.title, *found))
    answer, findings = answer_and_findings(results) if ok else ((), ())
    return page(head, sections, "What this run shows:" if ok else None, findings,
                failures(results.rows, lambda r: r.label), fmt, width, answer=answer, verbose=verbose, figure=figure)
