"""What TensorFlow reported of the first run: its optimizers' log, the graph that ran, the kernels traced."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.spec.kernels import named, runs_as
from tfgraphs.units import fmt_s, join


@rests_on("first_run_inside", "logged_first_run_s")
def first_run_inside(rows):
    """Where each default-config first run went, pass by pass, as TensorFlow's own log timed it."""
    said = []
    for r in rows:
        # Nothing understood in the log: the page says so once, in place of the table.
        if r.preset != "default" or not r.first_run_inside:
            continue
        passes = [s for s in r.first_run_inside if s["stage"].startswith("grappler/") and s["seconds"] is not None]
        line = f"{row_name(r)}: "
        if passes:
            spent = sum(s["seconds"] for s in passes)
            by = grouped(passes)
            top = ", ".join(f"{stage.split('/', 1)[1]} {fmt_s(t)}" for stage, t in by[:3])
            fold = [s for s in passes if s["stage"] == "grappler/constant_folding"]
            removed = sum(-s["nodes_change"] for s in fold)
            folding = ("" if not fold else
                       "; its constant_folding passes left the node count unchanged" if removed == 0
                       else f"; its constant_folding passes changed the node count by {-removed:+d}")
            line += (f"TensorFlow logged {len(passes)} Grappler passes taking {fmt_s(spent)} of the logged first "
                     f"run's {fmt_s(r.logged_first_run_s)} ({100 * spent / r.logged_first_run_s:.0f}%); the largest: "
                     f"{top}{folding}.")
        else:
            line += "TensorFlow logged no Grappler pass in this first run."
        found = classic_on_graph_that_ran(r)
        replaced = [s["replaced"] for s in r.first_run_inside if "replaced" in s]
        if replaced:
            line += f" The classic folder logged that it replaced {join(replaced)} by a constant."
        elif found:
            line += (f" The classic folder logged \"Constant foldable {found['foldable']} : {found['nodes']}\" "
                     f"({found['source']}) and no replacement.")
        said.append(line)
    return said


def classic_on_graph_that_ran(row):
    """The classic folder's log line about the graph that ran, or None: several graphs are folded in one run (a
    dataset's own, say), and the line's node count, _SOURCE and _SINK included, tells which one it was."""
    if not row.first_run_inside or not row.partition_ops:
        return None
    nodes = sum(row.partition_ops.values()) + 2
    return next((s for s in row.first_run_inside
                 if s["stage"] == "classic/constant_folding" and s.get("nodes") == nodes), None)



def grouped(passes):
    """[(stage, seconds)] summed over rounds, largest first."""
    by = {}
    for s in passes:
        by[s["stage"]] = by.get(s["stage"], 0.0) + s["seconds"]
    return sorted(by.items(), key=lambda kv: -kv[1])


@rests_on("partition_computes", "replaced_by_const")
def folding_evidence(rows):
    """Per default-config row: what the graph that ran holds, and what the classic folder's log said of it."""
    said = []
    for r in rows:
        if r.preset != "default":
            continue
        if not r.partition_computes["Conv2D"]:
            said.append(f"{row_name(r)}: folded. The graph that ran holds no Conv2D"
                        + (f"; the Const {join(r.replaced_by_const)}, made by folding, stands in its place"
                           if r.replaced_by_const else "")
                        + " (partition graphs).")
            continue
        found = classic_on_graph_that_ran(r)
        conv = named("Conv2D", r.partition_ops)   # as the graph that ran names it: oneDNN renames it in float32
        stateful = list(r.partition_stateful or ())
        if stateful:
            said.append(f"{row_name(r)}: not folded. The graph that ran still holds {conv}, fed by stateful ops "
                        f"({join(stateful)}, as TensorFlow's op registry marks them), which no constant folder "
                        f"evaluates (partition graphs).")
        elif found and found["foldable"] and not r.replaced_by_const:
            # common_runtime/constant_folding.cc, with no shape map (DirectSession's case), evaluates the foldable
            # subgraph first and only then skips the results over max_constant_size_in_bytes.
            said.append(f"{row_name(r)}: not folded. The classic folder logged \"Constant foldable "
                        f"{found['foldable']} : "
                        f"{found['nodes']}\" ({found['source']}; node ids of the constant graph it built : of the "
                        f"graph that ran) and no replacement, and that graph still holds {conv} (partition graphs): "
                        f"the folder evaluated the network and did not keep the result, as its source does with a "
                        f"result over its size limit.")
        elif r.partition_ops.get("_Arg"):
            said.append(f"{row_name(r)}: not folded. The graph that ran receives its inputs as "
                        f"{r.partition_ops['_Arg']} fed _Arg node{'s' if r.partition_ops['_Arg'] > 1 else ''} and "
                        f"still holds {conv} (partition graphs): no op that needs a fed value can be folded.")
        else:
            said.append(f"{row_name(r)}: not folded. The graph that ran still holds {conv} and folding made no Const "
                        f"(partition graphs).")
    return said


def ran_in_later(row, op_type):
    """True/False whether a kernel computing op_type (oneDNN's names too) ran in the second traced run."""
    return any(runs_as(op["type"], op_type) and op["later_ms"] is not None for op in row.top_ops)


@rests_on("top_ops")
def trace_facts(rows):
    """Whether a kernel computing Conv2D ran in the traced later run, per variant and preset (step stats)."""
    said = []
    kept = [r for r in rows if ran_in_later(r, "Conv2D")]
    if kept:
        said.append("Conv2D ran in the traced later run of " + ", ".join(
            row_name(r) + ("" if _kernel(r, "Conv2D") == "Conv2D" else f" (as {_kernel(r, 'Conv2D')})")
            for r in kept) + " (step stats).")
    gone = [r for r in rows if not ran_in_later(r, "Conv2D")]
    if gone:
        said.append("No kernel computing Conv2D ran in the traced later run of " + ", ".join(row_name(r) for r in gone)
                    + " (step stats).")
    return said


def _kernel(row, op_type):
    """The kernel type that computed op_type in the later traced run, as step stats name it."""
    return next(op["type"] for op in row.top_ops if runs_as(op["type"], op_type) and op["later_ms"] is not None)


def row_name(row):
    """variant [preset], and remote when it ran on a target."""
    return f"{row.variant} [{row.preset}]" + (" remote" if row.remote else "")
