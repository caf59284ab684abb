"""What tfgraphs finds in the files it is handed: a graph inspected (what its constants take, what repeats, the headroom
to 2 GiB), a graph rewritten by unembed (how much it shrank, whether outputs match, what it cost), and two saved results
set side by side (the judge's verdict on B against A), each from the files' own numbers."""

import statistics

from tfgraphs.errors import UsageError
from tfgraphs.findings.evidence import FINDINGS, Record, finding, judged, sentences_of
from tfgraphs.records.judge import RANK_SUM, judge
from tfgraphs.spec.options import FEWEST
from tfgraphs.records.judge import ratio
from tfgraphs.spec.network import GRAPHDEF_LIMIT
from tfgraphs.spec.owngraph import MIN_BYTES
from tfgraphs.units import fmt_bytes, fmt_s, shape_text

# inspect: one inspection, its findings said over a Record view.


@finding("inspect.constants", ("const_nodes", "const_node_bytes", "graph_bytes"),
         template="{n} Const nodes take {bytes}, {share} of the {bytes} GraphDef: most of the graph is constants "
         "(where they take half of it or more).",
         unless="the inspection did not count the graph's Const nodes and their bytes")
def constants(view):
    """How much of the GraphDef its Const nodes take."""
    s = view.record
    share, one = s.const_node_bytes / s.graph_bytes, s.const_nodes == 1
    return [f"{s.const_nodes:,} Const node{'' if one else 's'} take{'s' if one else ''} "
            f"{fmt_bytes(s.const_node_bytes)}, {share:.1%} of the {fmt_bytes(s.graph_bytes)} GraphDef"
            + (": most of the graph is constants." if share >= 0.5 else ".")]


@finding("inspect.elided", ("elided_consts", "const_nodes", "const_bytes"),
         template="{n} of them list fewer values than their shapes hold, and TensorFlow fills the rest with the last "
         "value listed (zeros when none is): expanded, the constants hold {bytes} bytes, against the {bytes} their "
         "nodes take in the GraphDef.", unless="every Const lists all the values its shape holds")
def elided(view):
    """The Consts that list fewer values than their shapes hold, and what they hold expanded."""
    s = view.record
    if not s.elided_consts:
        return []
    k, one = s.elided_consts, s.const_nodes == 1
    who = ("It" if one else "Both" if k == s.const_nodes == 2 else f"All {k:,}" if k == s.const_nodes
           else f"{k:,} of them")
    # tensor_util / tensor.cc: a Const listing fewer values than its shape is filled with its last value.
    return [f"{who} list{'s' if k == 1 else ''} fewer values than "
            f"{'its shape holds' if k == 1 else 'their shapes hold'}, and TensorFlow fills the rest with the "
            f"last value listed (zeros when none is): expanded, the constants hold {s.const_bytes:,} bytes, "
            f"against the {s.const_node_bytes:,} {'its node takes' if one else 'their nodes take'} in the "
            f"GraphDef."]


@finding("inspect.largest", ("largest_consts",),
         template="The largest, {name} ({dtype} {shape}), holds {bytes} bytes once expanded; its node takes {bytes}, "
         "{share} of the graph.", unless="the graph has no Const node")
def largest(view):
    """The largest Const: its bytes expanded and its node's share of the graph."""
    big = view.record.largest_consts[0]
    return [f"The largest, {big['name']} ({big['dtype']} {shape_text(big['shape'])}), holds {big['bytes']:,} "
            f"bytes once expanded; its node takes {fmt_bytes(big['node_bytes'])}, {big['graph_share']:.1%} "
            f"of the graph."]


@finding("inspect.repeats", ("repeats",),
         template="{n} Const nodes hold the same {bytes}-byte tensor ({nodes}): {bytes} bytes of the graph are "
         "repeats, {n} of them inside function bodies. (three at most)",
         unless="no two Const nodes hold the same tensor")
def repeats(view):
    """Const nodes holding the same tensor, three groups at most."""
    sentences = []
    for g in view.record.repeats[:3]:
        k = g["in_functions"]
        inside = f", {k} of them inside {'a function body' if k == 1 else 'function bodies'}." if k else "."
        sentences.append(f"{g['copies']} Const nodes hold the same {g['bytes']:,}-byte tensor "
                         f"({', '.join(g['nodes'])}): {g['bytes'] * (g['copies'] - 1):,} bytes of the graph are "
                         f"repeats{inside}")
    return sentences


def movable(s):
    """The largest Consts of at least unembed's default size outside function bodies."""
    return [c for c in s.largest_consts if c.get("function") is None and c["bytes"] >= MIN_BYTES]


@finding("inspect.unembed_hint", ("largest_consts", "graph_bytes"),
         template="Its {n} largest Consts of at least {bytes} bytes outside function bodies take {bytes}, {share} of "
         "the graph: `tfgraphs unembed {path} -o OUT` moves such constants into variables ...",
         unless="such Consts take less than half of the graph")
def unembed_hint(view):
    """Suggest unembed when Consts of at least its default size, outside function bodies, are most of the graph."""
    s = view.record
    moving = movable(s)
    moved = sum(c["node_bytes"] for c in moving)
    if not moving or moved < 0.5 * s.graph_bytes:
        return []
    k = len(moving)
    who = (f"Its largest Const of at least {MIN_BYTES:,} bytes outside function bodies takes" if k == 1 else
           f"Its {k:,} largest Consts of at least {MIN_BYTES:,} bytes outside function bodies take")
    return [f"{who} {fmt_bytes(moved)}, {moved / s.graph_bytes:.1%} of the graph: `tfgraphs unembed {s.path} -o OUT` "
            f"moves such constants into variables restored from a checkpoint, which would leave a GraphDef of about "
            f"{fmt_bytes(s.graph_bytes - moved)}."]


@finding("inspect.headroom", ("headroom_bytes", "graph_bytes"),
         template="It uses {share} of the 2 GiB GraphDef limit; it could grow by {bytes} more bytes. / At {bytes} "
         "bytes the graph is past the 2 GiB serialized-GraphDef limit: TensorFlow cannot serialize it.",
         unless="the inspection did not measure the serialized GraphDef")
def headroom(view):
    """How far the serialized GraphDef is from the 2 GiB limit."""
    s = view.record
    if s.headroom_bytes < 0:
        return [f"At {s.graph_bytes:,} bytes the graph is past the 2 GiB serialized-GraphDef limit: TensorFlow "
                f"cannot serialize it."]
    used = s.graph_bytes / GRAPHDEF_LIMIT
    room = f", {s.headroom_bytes / s.graph_bytes:,.0f}x its size." if used < 0.5 else "."
    return [f"It uses {used * 100:.3g}% of the 2 GiB GraphDef limit; it could grow by {s.headroom_bytes:,} "
            f"more bytes{room}"]


# unembed: one rewrite, its findings said over a Record view.


@finding("unembed.size", ("before", "after"),
         template="{n} Consts ({bytes} bytes) moved into variables restored from the checkpoint: the GraphDef went "
         "from {bytes} to {bytes} bytes, {share} smaller. / No Const outside a function body holds {bytes} or more, "
         "so nothing moved; ...", unless="the rewrite measured no graph before and after")
def size(view):
    """How much the GraphDef shrank, or that nothing moved."""
    u = view.record
    b, a = u.before["graph_bytes"], u.after["graph_bytes"]
    if not u.moved:
        least = "--min-bytes" if u.min_bytes is None else f"{u.min_bytes:,} bytes"
        return [f"No Const outside a function body holds {least} or more, so nothing moved; the "
                f"SavedModel holds the same constants (lower --min-bytes to move smaller ones)."]
    k = len(u.moved)
    return [f"{k:,} Const{'s' if k != 1 else ''} ({u.moved_bytes:,} bytes) moved into variables restored from the "
            f"checkpoint: the GraphDef went from {b:,} to {a:,} bytes, {(1 - a / b) * 100:.6g}% smaller."]


@finding("unembed.left", ("left", "min_bytes"),
         template="{n} Consts of at least {bytes} bytes inside function bodies stayed in place ({bytes} bytes).",
         unless="no Const of that size is inside a function body")
def left(view):
    """The large Consts inside function bodies, which stayed in place."""
    u = view.record
    return [f"{len(u.left):,} Const{'s' if len(u.left) != 1 else ''} of at least {u.min_bytes:,} bytes inside "
            f"function bodies stayed in place ({sum(x['bytes'] for x in u.left):,} bytes)."]


@finding("unembed.check", ("within", "max_abs_err", "tolerance"),
         template="The rewritten graph's outputs equal the original's on the same feeds: the largest absolute "
         "difference is {n} (tolerance {n}). / The outputs DIFFER: ...",
         unless="the outputs were not compared (--no-check)")
def check(view):
    """Whether the rewritten graph's outputs equal the original's."""
    u = view.record
    if u.within:
        return [f"The rewritten graph's outputs equal the original's on the same feeds: the largest absolute "
                f"difference is {u.max_abs_err:.3g} (tolerance {u.tolerance:.3g})."]
    return [f"The outputs DIFFER: the largest absolute difference is {u.max_abs_err:.3g}, above the tolerance of "
            f"{u.tolerance:.3g}."]


def timed(u):
    """True when both sides ran a first run and later runs."""
    b, a = u.before, u.after
    return not (b["first_run_s"] is None or a["first_run_s"] is None or not b["runs_s"] or not a["runs_s"])


@finding("unembed.times", ("before", "after"),
         template="First run, after against before: {time} against {time}, {verdict}: one first run a side, ... / "
         "Later runs, after against before: a median {time} against {time}, {verdict}.",
         unless="either graph lacks a timed first run or later runs")
def times(view):
    """First runs after against before, and later runs after against before: each side in its own fresh worker."""
    u = view.record
    if not timed(u):
        return []
    b, a = u.before, u.after
    first = judge([a["first_run_s"]], [b["first_run_s"]])
    sentences = [judged(f"First run, after against before: {fmt_s(a['first_run_s'])} against "
                        f"{fmt_s(b['first_run_s'])}, {first.says(fmt_s)}: one first run a side, one per fresh worker "
                        f"(--runs repeats only the later runs).", first)]
    later = judge(a["runs_s"], b["runs_s"])
    sentences.append(judged(f"Later runs, after against before: a median {fmt_s(statistics.median(a['runs_s']))} "
                            f"against {fmt_s(statistics.median(b['runs_s']))}, {later.says(fmt_s)}.", later))
    return sentences


@finding("unembed.peak_rss", ("before", "after"),
         template="Peak RSS of the worker running the graph: {bytes} before, {bytes} after.",
         unless="either graph lacks a timed run or a measured peak")
def peak_rss(view):
    """The peak resident memory of the worker running each graph."""
    u = view.record
    if not (timed(u) and u.before["peak_rss_bytes"] and u.after["peak_rss_bytes"]):
        return []
    return [f"Peak RSS of the worker running the graph: {fmt_bytes(u.before['peak_rss_bytes'])} before, "
            f"{fmt_bytes(u.after['peak_rss_bytes'])} after."]


# What each timed phase of the rewrite did, in the order it ran; assign_s only in documents written by a rewrite that
# handed the values to the variables rather than straight to the checkpoint.
PHASES = (("read_s", "reading the graph"), ("rewrite_s", "rewriting it"),
          ("assign_s", "handing the values to the variables"), ("save_s", "writing the SavedModel and checkpoint"))


@finding("unembed.cost", ("unembed_s",),
         template="The rewrite took {time}: reading the graph {time}, rewriting it {time}, ...; {ratio}x the time of "
         "the reading and writing alone.", unless="the rewrite was not timed")
def cost(view):
    """What the rewrite itself cost: its time by phase."""
    u = view.record
    p = u.unembed_phases
    phases = [f"{what} {fmt_s(p[key])}" for key, what in PHASES if key in p]
    io = p.get("read_s", 0) + p.get("save_s", 0)
    return [f"The rewrite took {fmt_s(u.unembed_s)}" + (
        f": {', '.join(phases)}; {u.unembed_s / io:.1f}x the time of the reading and writing alone."
        if {"read_s", "save_s"} <= set(p) and io > 0 else ".")]


@finding("unembed.cost_memory", ("unembed_s",),
         template="Its worker peaked at {bytes} RSS, {bytes} above the {bytes} it held once TensorFlow was imported: "
         "{ratio}x the {bytes}-byte GraphDef.", unless="the rewrite's worker did not measure its memory")
def cost_memory(view):
    """The rewrite's memory above TensorFlow's own, in graph sizes."""
    u = view.record
    graph, peak, base = u.before.get("graph_bytes"), u.unembed_peak_rss_bytes, u.tf_rss_bytes
    if not (peak and base and graph):
        return []
    return [f"Its worker peaked at {fmt_bytes(peak)} RSS, {fmt_bytes(peak - base)} above the {fmt_bytes(base)} it "
            f"held once TensorFlow was imported: {(peak - base) / graph:.2f}x the {graph:,}-byte GraphDef."]


def answer_and_findings(results):
    """(no answer block, the findings) of one inspection or one rewrite, said over its record."""
    return [], sentences_of(FINDINGS[results.command], Record(results))


# Two saved results of one command side by side: per row and phase A, B, B/A, and the judge's verdict on B against A
# over the two documents' trials.


def later_median(trial):
    """The median of a trial's later runs, or None."""
    return statistics.median(trial.runs_s) if trial.runs_s else None


# (label, the field of a trial or a row holding it, or how to compute it); times in seconds, sizes in bytes.
COMPARED = (("build", "build_s"), ("session", "session_s"), ("init", "init_s"), ("first run", "first_run_s"),
            ("later median", later_median), ("graph bytes", "graph_bytes"), ("peak RSS", "peak_rss_bytes"))


def read(trial, field):
    """One trial's (or row's) value of a compared phase."""
    return field(trial) if callable(field) else getattr(trial, field)


def key(row):
    """What names a row across documents: batch (sweep), variant, preset, and remote or summed (--target, --fetch)."""
    return row.batch, row.variant, row.preset, row.remote, row.returns or "output"


def label(k):
    """A row's key as the comparison's table names it."""
    batch, variant, preset, remote, fetch = k
    return ((f"batch {batch:,} " if batch is not None else "") + variant
            + (f" [{preset}]" if preset != "default" else "") + (" remote" if remote else "")
            + (" (sum)" if fetch == "sum" else ""))


def pairs(a, b):
    """The ok rows the two results share, by key; UsageError when they cannot be compared."""
    if a.command != b.command:
        raise UsageError(f"cannot compare results of two commands ({a.command} and {b.command})")
    rows_a, rows_b = ({key(r): r for r in results.rows if r.ok} for results in (a, b))
    shared = [k for k in rows_a if k in rows_b]
    if not shared:
        raise UsageError("the two results have no variant in common that succeeded in both")
    return [(k, rows_a[k], rows_b[k]) for k in shared]


def lines(a, b):
    """Per shared row and phase measured in both: {row, phase, a, b, ratio, trials, verdict}; verdict judges B's
    trials against A's."""
    out = []
    for k, ra, rb in pairs(a, b):
        for phase, field in COMPARED:
            va, vb = read(ra, field), read(rb, field)   # a row holds its trials' medians, and every later run pooled
            if va is None or vb is None:
                continue
            ta, tb = ([v for v in (read(t, field) for t in r.trials if t.status == "ok") if v is not None]
                      for r in (ra, rb))
            out.append({"row": label(k), "phase": phase, "a": va, "b": vb, "ratio": ratio(vb, va),
                        "trials": (len(ta), len(tb)), "verdict": b_against_a(tb, ta)})
    return out


def b_against_a(tb, ta):
    """B's trials against A's: each trial is a fresh worker, and the two documents' workers are independent. A phase
    that may be zero is judged as a shift rather than a ratio."""
    return judge(tb, ta) if all(v > 0 for v in (*ta, *tb)) else judge(tb, ta, scale="shift")


def listed(found):
    """Each line as 'row phase (verdict's detail)', joined."""
    return "; ".join(f"{f['row']} {f['phase']} ({f['verdict'].detail()})" for f in found)


def comparison_sentences(found):
    """What the comparison can and cannot say: each verdict with its n and interval."""
    fewest = FEWEST[RANK_SUM]
    sentences = []
    for word, moved in (("larger", [f for f in found if f["verdict"].larger]),
                        ("smaller", [f for f in found if f["verdict"].smaller])):
        if moved:
            sentences.append(judged(f"B differs from A and is {word} in: {listed(moved)}.",
                                    *(f["verdict"] for f in moved)))
    same = [f for f in found if f["verdict"].same]
    if same:
        sentences.append(judged(f"No difference beyond {same[0]['verdict'].margin_text()} between A and B in: "
                                f"{listed(same)}.", *(f["verdict"] for f in same)))
    unknown = [f for f in found if f["verdict"].outcome not in ("differs", "no difference")]
    short = [f for f in unknown if min(f["trials"]) < fewest]
    if short and len(short) == len(found):
        n = sorted({f["trials"] for f in short})
        sentences.append(judged(f"Cannot tell for any phase: each row has fewer than {fewest} trials in at least one "
                                f"result (n={' or '.join(f'{a} and {b}' for a, b in n)}), and a rank test needs "
                                f"{fewest} a side: run both with --trials {fewest} or more.",
                                *(f["verdict"] for f in short)))
    elif short:
        sentences.append(judged(f"Cannot tell for {len(short)} phases with fewer than {fewest} trials in A or B (a "
                                f"rank test needs {fewest} a side): {listed(short)}.", *(f["verdict"] for f in short)))
    rest = [f for f in unknown if f not in short]
    if rest:
        sentences.append(judged(f"Cannot tell, with enough trials for the test, for: {listed(rest)}.",
                                *(f["verdict"] for f in rest)))
    return sentences
