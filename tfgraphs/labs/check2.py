"""Lab 2 checks: session presets as ConfigProto, reading traced ops, and the first run's excess."""

import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2

from tfgraphs.spec import network
from tfgraphs.worker import graphs, stepstats
from tfgraphs.worker.sessions import session_config
from tfgraphs.labs.marks import hint, judged_by

COMBOS = {(True, True): "default", (False, True): "no-grappler", (True, False): "no-folding", (False, False): "bare"}


OFF = rewriter_config_pb2.RewriterConfig.OFF


def effective(config):
    """What a ConfigProto switches, however it is written: (Grappler, its folding, classic folding, L0, the rest)."""
    g = config.graph_options
    grappler = not g.rewrite_options.disable_meta_optimizer
    l0 = g.optimizer_options.opt_level == tf.compat.v1.OptimizerOptions.L0
    rest = tf.compat.v1.ConfigProto()
    rest.CopyFrom(config)
    rest.graph_options.rewrite_options.ClearField("disable_meta_optimizer")
    rest.graph_options.rewrite_options.ClearField("constant_folding")
    rest.graph_options.optimizer_options.ClearField("opt_level")
    rest.graph_options.optimizer_options.ClearField("do_constant_folding")
    return (grappler, grappler and g.rewrite_options.constant_folding != OFF,
            not l0 or g.optimizer_options.do_constant_folding, l0, rest.SerializeToString(deterministic=True))


# What each part of effective() is, and the fields that write it, so a WRONG line names the field to fix.
SWITCHES = (("Grappler", "graph_options.rewrite_options.disable_meta_optimizer"),
            ("Grappler's constant folding", "graph_options.rewrite_options.constant_folding"),
            ("the classic folder", "graph_options.optimizer_options.opt_level and do_constant_folding"),
            ("opt_level L0", "graph_options.optimizer_options.opt_level"),
            ("the other fields", "no other field"))


def _differences(got, want):
    """The index of each switch that differs, and 'Grappler (...) on where off was asked' for it."""
    state = {True: "on", False: "off"}
    return [(i, f"{SWITCHES[i][0]} ({SWITCHES[i][1]}) {state.get(g, 'changed')} where "
                f"{state.get(w, 'the default')} was asked") for i, (g, w) in enumerate(zip(got, want)) if g != w]


def _configs(facts):
    wrong, fields = [], []
    for grappler, folding, written in facts["configs"]:
        got = effective(tf.compat.v1.ConfigProto.FromString(written))
        # Compared by what they switch: a field that changes nothing when the rest is set is not required.
        want = effective(session_config(COMBOS[(grappler, folding)]))
        if got != want:
            found = _differences(got[:4] + (got[4] == want[4],), want[:4] + (True,))
            wrong.append(f"grappler={grappler}, constant_folding={folding}: {'; '.join(t for _, t in found)}")
            fields += [SWITCHES[i][1] for i, _ in found]
    hint_text = ("Set " + ", ".join(dict.fromkeys(fields)) + " as step 3 gives them, and leave every other "
                 "field alone." if wrong else "")
    return not wrong, "; ".join(wrong) if wrong else "all four combinations", hint_text


@hint("session_config must return a ConfigProto that switches Grappler and the two constant folders as step 3 "
      "says; the four combinations are the presets of `tfgraphs explain` (default, no-grappler, no-folding, bare).")
@judged_by(_configs)
def configs_match(mod):
    """session_config(grappler, constant_folding) switches exactly the right optimizers"""
    return {"configs": [(grappler, folding, mod.session_config(grappler=grappler, constant_folding=folding)
                         .SerializeToString()) for grappler, folding in COMBOS]}


def _traced_metadata():
    x, w = network.make_data(20, "float64", 0)
    built = graphs.build("constant", x, w)
    with tf.compat.v1.Session(graph=built.graph, config=session_config("bare")) as sess:
        meta = tf.compat.v1.RunMetadata()
        sess.run(built.output, options=tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    return meta


def _op_types(facts):
    # The judge's own trace of the same graph and session: the op types that run are the same in every process.
    meta = _traced_metadata()
    want = {t for t, _ in stepstats.op_times(meta.step_stats).values() if t}
    got = set(facts["got"])
    # TensorFlow's own nodes (types starting with "_", such as _Retval, and the _SOURCE NoOp) may be counted or not.
    required = {t for t in want if not t.startswith("_")}
    ok = required <= got <= want | {"NoOp"}
    names = {n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats}
    # The likely mistake behind what was seen: node names where op types were asked for, or types left out.
    mistake = ("these are node names (node_name); step 4 says which field of a NodeExecStats holds the op type"
               if got & names - want else f"the trace also ran {sorted(required - got)}" if required - got else
               f"{sorted(got - want - {'NoOp'})} did not run in the trace")
    return ok, f"got {sorted(got)}", "" if ok else mistake


@hint("The op types are in run_metadata.step_stats, node by node on each device: step 4 says which field holds "
      "each node's type.")
@judged_by(_op_types)
def op_types_match(mod):
    """op_types_that_ran(run_metadata) finds every op type in the trace"""
    return {"got": sorted(set(mod.op_types_that_ran(_traced_metadata())), key=str)}


# (first run, later runs, how many of the later runs are slow outliers, listed first or last).
EXCESS_CASES = ((3.0, [1.0, 1.0, 1.0], 0), (2.0, [0.5, 0.5, 9.0], 1), (2.0, [9.0, 0.5, 0.5], 1),
                (1.0, [0.2, 0.4, 0.6, 10.0], 1), (1.0, [0.3, 0.25, 0.35, 0.3, 0.28], 0))


def _robust(facts):
    wrong = []
    for (first, later, slow), excess in zip(EXCESS_CASES, facts["excess"]):
        typical = first - excess
        normal = sorted(later)[:len(later) - slow]
        if not min(normal) - 1e-12 <= typical <= max(normal) + 1e-12:
            wrong.append(f"later runs {later} gave a typical later run of {typical:.3g}")
    # The observation, not the statistic: which runs the student's summary was dragged towards.
    dragged = any(slow for (_, _, slow), _ in zip(EXCESS_CASES, facts["excess"]))
    return not wrong, "; ".join(wrong) if wrong else f"{len(EXCESS_CASES)} cases", (
        "" if not wrong else "Your typical later run lies outside the usual runs: one slow run moved it. Which "
        "summary of a list stays among the usual values whatever one outlier is?" if dragged else "")


@hint("A typical later run must lie among the usual later runs, whatever one slow run is.")
@judged_by(_robust)
def excess_is_robust(mod):
    """first_run_excess(first_s, later_s) is not dragged by one slow later run"""
    return {"excess": [mod.first_run_excess(first, list(later)) for first, later, _ in EXCESS_CASES]}


CHECKS = (configs_match, op_types_match, excess_is_robust)
