"""Lab 2 checks: session presets as ConfigProto, reading traced ops, and the first run's excess."""

import statistics

import tensorflow as tf

from tfgraphs.spec import network
from tfgraphs.worker import graphs, stepstats
from tfgraphs.worker.sessions import session_config
from tfgraphs.labs.checking import hint

COMBOS = {(True, True): "default", (False, True): "no-grappler", (True, False): "no-folding", (False, False): "bare"}


@hint("Grappler: graph_options.rewrite_options (disable_meta_optimizer, constant_folding = RewriterConfig.OFF); "
      "classic folding: graph_options.optimizer_options (opt_level = L0, do_constant_folding = False).")
def configs_match(mod):
    """session_config(grappler, constant_folding) sets exactly the right fields"""
    wrong = []
    for (grappler, folding), preset in COMBOS.items():
        got = mod.session_config(grappler=grappler, constant_folding=folding)
        if got.SerializeToString(deterministic=True) != session_config(preset).SerializeToString(
                deterministic=True):
            wrong.append(f"grappler={grappler}, constant_folding={folding}")
    return not wrong, "wrong for " + "; ".join(wrong) if wrong else "all four combinations", (
        "Each flag switches off only its own optimizer; both True must equal a default ConfigProto()." if wrong else "")


def _traced_metadata():
    x, w = network.make_data(20, "float64", 0)
    built = graphs.build("constant", x, w)
    with tf.compat.v1.Session(graph=built.graph, config=session_config("bare")) as sess:
        meta = tf.compat.v1.RunMetadata()
        sess.run(built.output, options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    return meta


@hint("Walk run_metadata.step_stats.dev_stats[*].node_stats[*]; the op type is in timeline_label, "
      "as in 'conv = Conv2D(X, W)'.")
def op_types_match(mod):
    """op_types_that_ran(run_metadata) finds every op type in the trace"""
    meta = _traced_metadata()
    want = {t for t, _ in stepstats.op_times(meta.step_stats).values() if t}
    got = set(mod.op_types_that_ran(meta))
    # The executor's _SOURCE node is a NoOp: counting it or not are both right.
    ok = want <= got <= want | {"NoOp"}
    return ok, f"got {sorted(got)}", "" if ok else f"expected {sorted(want)}"


@hint("The later runs are summarised by their median, not their mean: one slow run must not move it.")
def excess_uses_median(mod):
    """first_run_excess(first_s, later_s) = first - median(later)"""
    cases = [(3.0, [1.0, 1.0, 1.0]), (2.0, [0.5, 0.5, 9.0]), (1.0, [0.2, 0.4, 0.6, 10.0])]
    wrong = [(f, later) for f, later in cases
             if abs(mod.first_run_excess(f, later) - (f - statistics.median(later))) > 1e-12]
    return not wrong, f"wrong for {wrong}" if wrong else "three cases", ""


CHECKS = (configs_match, op_types_match, excess_uses_median)
