"""What a session runs, lesson by lesson: what folds, what a fetch executes, a fed array's copy, kept executors."""

import statistics

from tfgraphs.findings.evidence import judged, rests_on
from tfgraphs.findings.cases import paired_runs, runs_of, short_s, signed_bytes
from tfgraphs.records.judge import judge
from tfgraphs.spec.kernels import NETWORK_OPS, runs_as
from tfgraphs.spec.pitfalls import LEAK_AGAIN, RAISED_FOLD_LIMIT
from tfgraphs.units import fmt_bytes, fmt_s, join


@rests_on("computes")
def _folded(case):
    head = f"{case.case}: "
    if not case.computes["Conv2D"]:
        return [head + "folded: the graph that ran holds no Conv2D"
                + (f", and the Const {join(case.replaced_by_const)}, made by folding, stands in its place"
                   if case.replaced_by_const else "") + " (partition graphs); its second run took "
                f"{short_s(case.later_s)} against a first run of {fmt_s(case.seconds)}."]
    if case.stateful:
        return [head + f"not folded: Conv2D still ran, fed by {join(case.stateful)}, which TensorFlow's op "
                f"registry marks stateful; no constant folder evaluates a stateful op."]
    if case.fed:
        return [head + f"not folded: Conv2D still ran behind {case.fed} fed _Arg node"
                f"{'s' if case.fed > 1 else ''} (partition graphs); no op that needs a fed value can be folded."]
    classic = [s for s in case.folder_log or () if s["stage"] == "classic/constant_folding"]
    logged = [s for s in classic if s.get("foldable")]
    note = (f"; the classic folder logged {logged[0]['foldable']} foldable node ids and no replacement"
            if logged and not any("replaced" in s for s in classic) else "")
    return [head + f"not folded: Conv2D still ran and folding made no Const (partition graphs){note}."]


@rests_on("computes", "fetched_bytes")
def _what_decides(whole, scalar):
    if not (whole.computes["Conv2D"] and not scalar.computes["Conv2D"]):
        return []
    return [f"The same network folded when it fetched its sum ({scalar.fetched_bytes} bytes) and not when "
            f"it fetched the whole output ({whole.fetched_bytes:,} bytes): what decides is the size of the "
            f"tensor that leaves the folded subgraph, not the size of X or of the tensors inside it."]


@rests_on("computes")
def _raised_limit(whole, raised):
    if not (whole.computes["Conv2D"] and not raised.computes["Conv2D"]):
        return []
    grappler = [s for s in raised.folder_log or () if s["stage"] == "grappler/constant_folding"]
    kept = (" Grappler's constant_folding passes left the node count unchanged even then: its own limit is "
            "separate (grappler/optimizers/constant_folding.cc)."
            if grappler and not any(s["nodes_change"] for s in grappler) else "")
    return [f"With OptimizerOptions.max_folded_constant_in_bytes = {RAISED_FOLD_LIMIT:,} the classic folder "
            f"replaced the whole output, which it did not under its default limit.{kept}"]


@rests_on("kernels", "counter_after")
def _pruned(variant, case):
    network = [op for op in NETWORK_OPS if any(runs_as(k, op) for k in case.kernels)]
    computed = f"ran {join(network)}" if network else "ran no kernel of the network"
    bumped = [k for k in case.kernels if k.startswith("AssignAdd")]
    side = (f"and {join(bumped)}: the counter read {case.counter_after} after it" if bumped else
            f"and no assign_add: the counter still read {case.counter_after}")
    returned = "; sess.run returned None" if case.returned_none else ""
    return [f"{variant}: {case.case} {computed} {side} (step stats){returned}."]


@rests_on("seconds", "runs_s", "address_mod_64")
def _alignment(variant, aligned, unaligned):
    # The two feeds take turns in one session, so the i-th runs of each are a pair.
    pairs = paired_runs(unaligned, aligned)
    v = judge(runs_of(unaligned), runs_of(aligned), paired=pairs)
    slower = f", the unaligned feed slower in {v.above} of {v.n_a} pairs" if pairs else ""
    head = (f"{variant}: feeding X from data {unaligned.address_mod_64} bytes past a 64-byte boundary took "
            f"{fmt_s(unaligned.seconds)} a run (median of {len(runs_of(unaligned))}) against "
            f"{fmt_s(aligned.seconds)} from a 64-byte-aligned copy, fetching only tf.size(X){slower}: "
            f"{v.says(fmt_s)}")
    if v.larger:
        # ndarray_tensor.cc hands TensorFlow an aligned array's own memory and copies any other one. The copy inside
        # TensorFlow is not traced, so the extra is set beside a NumPy copy timed in the same worker, not called one.
        copies = sorted({c.copy_s for c in (aligned, unaligned) if c.copy_s is not None})
        timed = " and ".join(fmt_s(c) for c in copies)
        beside = (f". The unaligned feed added {fmt_s(unaligned.seconds - aligned.seconds)} a run (medians); a NumPy "
                  f"copy of X took {timed} when timed in this worker; the copy TensorFlow makes is not traced"
                  if copies else "")
        return [judged(head + beside + ".", v)]
    return [judged(head + ".", v)]


@rests_on("rss_bytes", "seconds")
def _leaked(variant, x, cases):
    new = [c for c in cases if c.case != LEAK_AGAIN]
    again = next((c for c in cases if c.case == LEAK_AGAIN), None)
    if not new:
        return []
    grew = [c.rss_bytes[1] - c.rss_bytes[0] for c in new]
    said = [f"{variant}: {len(new)} new sets of targets in one session grew resident memory by "
            f"{fmt_bytes(sum(grew))} in all, {fmt_bytes(statistics.median(grew))} median per new set "
            f"({statistics.median(grew) / x:.2f}x X's {fmt_bytes(x)}); RSS, one sample per set."]
    if again is not None:
        first = new[0]
        # One sample each: the times are given, not judged; RSS shows only what went back to the system.
        said.append(f"{variant}: {first.case} run again at the end took {fmt_s(again.seconds)} against "
                    f"{fmt_s(first.seconds)} the first time (one sample each), and resident memory changed by "
                    f"{signed_bytes(again.rss_bytes)}: none of what the earlier sets added went back to the "
                    f"system (RSS; an allocator may also keep memory it freed).")
    return said
