"""What a session runs, lesson by lesson: what folds, what a fetch executes, a fed array's copy, kept executors."""

import statistics

from tfgraphs.findings.cases import against, data_bytes, runs_of, short_s, signed_bytes
from tfgraphs.spec.kernels import NETWORK_OPS, runs_as
from tfgraphs.spec.pitfalls import ALIGNMENT_CASES, FOLDING_CASES, LEAK_AGAIN, RAISED_FOLD_LIMIT
from tfgraphs.units import fmt_bytes, fmt_s, join


def folding(run):
    """What each folding case left in the graph that ran, and what the folders logged, case by case."""
    c = {case.case: case for case in run.cases}
    said = []
    for case in run.cases:
        if case.computes is None:
            continue
        head = f"{case.case}: "
        if not case.computes["Conv2D"]:
            said.append(head + "folded: the graph that ran holds no Conv2D"
                        + (f", and the Const {join(case.replaced_by_const)}, made by folding, stands in its place"
                           if case.replaced_by_const else "") + " (partition graphs); its second run took "
                        f"{short_s(case.later_s)} against a first run of {fmt_s(case.seconds)}.")
        elif case.stateful:
            said.append(head + f"not folded: Conv2D still ran, fed by "
                        f"{join(case.stateful)}, which TensorFlow's op "
                        f"registry marks stateful; no constant folder evaluates a stateful op.")
        elif case.fed:
            said.append(head + f"not folded: Conv2D still ran behind {case.fed} fed _Arg node"
                        f"{'s' if case.fed > 1 else ''} (partition graphs); no op that needs a fed value can be folded.")
        else:
            logged = [s for s in case.folder_log or () if "foldable" in s and s["foldable"]]
            note = (f"; the classic folder logged {logged[0]['foldable']} foldable node ids and no replacement"
                    if logged and not any("replaced" in s for s in case.folder_log) else "")
            said.append(head + f"not folded: Conv2D still ran and folding made no Const (partition "
                        f"graphs){note}.")
    whole, scalar, raised = c.get(FOLDING_CASES[0]), c.get(FOLDING_CASES[1]), c.get(FOLDING_CASES[2])
    if whole and scalar and whole.computes and scalar.computes and whole.computes["Conv2D"] \
            and not scalar.computes["Conv2D"]:
        said.append(f"The same network folded when it fetched its sum ({scalar.fetched_bytes} bytes) and not when "
                    f"it fetched the whole output ({whole.fetched_bytes:,} bytes): what decides is the size of the "
                    f"tensor that leaves the folded subgraph, not the size of X or of the tensors inside it.")
    if whole and raised and whole.computes and raised.computes and whole.computes["Conv2D"] \
            and not raised.computes["Conv2D"]:
        grappler = [s for s in raised.folder_log or () if s["stage"] == "grappler/constant_folding"]
        kept = (" Grappler's constant_folding passes left the node count unchanged even then: its own limit is "
                "separate (grappler/optimizers/constant_folding.cc)." if grappler and not any(s["nodes_change"] for s in grappler)
                else "")
        said.append(f"With OptimizerOptions.max_folded_constant_in_bytes = {RAISED_FOLD_LIMIT:,} the classic folder "
                    f"replaced the whole output, which it did not under its default limit.{kept}")
    return said


def pruning(run):
    """Which kernels each fetch ran (step stats), and whether the assign_add outside relu's fan-in ran."""
    said = []
    for case in run.cases:
        if case.kernels is None:
            continue
        network = [op for op in NETWORK_OPS if any(runs_as(k, op) for k in case.kernels)]
        computed = f"ran {join(network)}" if network else "ran no kernel of the network"
        bumped = [k for k in case.kernels if k.startswith("AssignAdd")]
        side = (f"and {join(bumped)}: the counter read {case.counter_after} after it" if bumped else
                f"and no assign_add: the counter still read {case.counter_after}")
        returned = "; sess.run returned None" if case.returned_none else ""
        said.append(f"{run.variant}: {case.case} {computed} {side} (step stats){returned}.")
    return said


def feed_alignment(run):
    """The same feed from an aligned and an unaligned buffer, judged against both cases' spreads."""
    aligned, unaligned = (run.case(name) for name in ALIGNMENT_CASES)
    d, times = against(unaligned, aligned)
    head = (f"{run.variant}: feeding X from data {unaligned.address_mod_64} bytes past a 64-byte boundary took "
            f"{fmt_s(unaligned.seconds)} a run (median of {len(runs_of(unaligned))}) against "
            f"{fmt_s(aligned.seconds)} from a 64-byte-aligned copy, fetching only tf.size(X)")
    if d.larger:
        # ndarray_tensor.cc hands TensorFlow an aligned array's own memory and copies any other one.
        return [head + f": {times:.1f}x, beyond a spread of {fmt_s(d.spread)}. One NumPy copy of X takes "
                       f"{fmt_s(unaligned.copy_s)} here: the difference is of the order of one copy of the array per run "
                       f"(the copy itself is not traced)."]
    return [head + f": no measurable difference (spread {fmt_s(d.spread)})."]


def executor_leak(run, report):
    """What each new signature added to resident memory, and whether the first one was still cached at the end."""
    new = [c for c in run.cases if c.case != LEAK_AGAIN]
    again = run.case(LEAK_AGAIN)
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in new]
    x = data_bytes(report)
    said = [f"{run.variant}: {len(new)} new sets of targets in one session grew resident memory by "
            f"{fmt_bytes(sum(grew))} in all, {fmt_bytes(statistics.median(grew))} median per new set "
            f"({statistics.median(grew) / x:.2f}x X's {fmt_bytes(x)}); RSS, one sample per set."]
    if again is not None:
        first = new[0]
        # One sample each: the times are given, not judged; RSS shows only what went back to the system.
        said.append(f"{run.variant}: {first.case} run again at the end took {fmt_s(again.seconds)} against "
                    f"{fmt_s(first.seconds)} the first time (one sample each), and resident memory changed by "
                    f"{signed_bytes(again.rss_bytes)}: none of what the earlier sets added went back to the "
                    f"system (RSS; an allocator may also keep memory it freed).")
    return said
