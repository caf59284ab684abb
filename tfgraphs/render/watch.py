"""Render a watched script: the answer, each call site's runs, the large Consts, the growth, the feeds, the traces."""

import shlex

from tfgraphs.findings.watch import told, where
from tfgraphs.render.page import WIDTH, Table, page, time_unit
from tfgraphs.units import fmt_int, shape_text, sig3


def header(w):
    """What ran, then with which TensorFlow on which machine."""
    m = w.machine
    ran = "tfgraphs watch" + (" --tf1" if w.tf1 else "") + " " + shlex.join(w.argv or [w.script or "?"])
    return ran + (f"\nTensorFlow {w.tf_version}, {m.get('cpu_count')} x {m.get('cpu_model', '?')}" if m else "")


def calls_table(w):
    unit, scale = time_unit([t for c in w.calls for t in (c["first_s"], c["later_median_s"]) if t is not None])

    def t(v):
        return None if v is None else sig3(v / scale)

    rows = tuple((where(w, c["file"], c["line"]), c["kind"], fmt_int(c["n"]), fmt_int(c["signatures"]),
                  t(c["first_s"]), t(c["later_median_s"]), fmt_int(c["feed_bytes_per_call"])) for c in w.calls)
    legend = ("Each line of the script that called Session.run (or a callable): its calls, the distinct fetch/feed "
              "sets it used, its first call and the median of the rest, timed around TensorFlow's own call.")
    return Table(("line", "kind", "calls", "sets", f"first {unit}", f"later median {unit}", "fed bytes/call"), rows,
                 keys=1, wrap=((0, 40),)), legend


def consts_table(w):
    rows = tuple((where(w, c["file"], c["line"]), c["name"], c["dtype"], shape_text(c["shape"]), fmt_int(c["bytes"]))
                 for c in w.consts)
    legend = (f"Consts of at least {w.min_bytes:,} bytes, by the line that made them; bytes = the NodeDef's. Only a "
              f"Const whose data is at least half its NodeDef is a finding: the others' bytes are names and "
              f"attributes, which no feed removes.")
    return Table(("line", "Const", "dtype", "shape", "bytes"), rows, keys=1, wrap=((0, 40), (1, 30))), legend


def growth_table(w):
    rows = tuple((where(w, g["file"], g["line"]), fmt_int(g["ops"]), fmt_int(g["runs"]),
                  ", ".join(f"{n} {t}" for t, n in sorted(g["op_types"].items()))) for g in w.growth)
    return (Table(("line", "ops", "runs", "op types"), rows, keys=1, wrap=((0, 40), (3, 40))),
            "Ops created after a session ran their graph, by the line that made them: in the gaps between that "
            "session's runs, or after its last. Ops made before a session's first run are what it starts with, and are "
            "not counted. runs = the gaps they fell in.")


def feeds_table(w):
    rows = tuple((where(w, f["file"], f["line"]), f["feed"], fmt_int(f["bytes"]), fmt_int(f["calls"]),
                  fmt_int(f["same_calls"])) for f in w.feeds)
    return (Table(("line", "fed to", "bytes", "calls", "same array"), rows, keys=1, wrap=((0, 40), (1, 30))),
            f"Arrays of at least {w.min_bytes:,} bytes fed; same array = calls given the first call's array "
            "unchanged (the same object, a sample of its bytes unchanged).")


def functions_table(w):
    rows = tuple((where(w, f["file"], f["line"]), f["name"], fmt_int(f["traces"])) for f in w.functions)
    return Table(("line", "tf.function", "traces"), rows, keys=1), "Trace counts as TensorFlow reports them."


def render(w, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The whole watched run as text: the answer, the call sites, then what else was seen (all with verbose)."""
    parts = (("Session.run calls", w.calls, calls_table), ("Large constants", w.consts, consts_table),
             ("Ops made between a session's runs", w.growth, growth_table), ("Large feeds", w.feeds, feeds_table),
             ("tf.function traces", w.functions, functions_table))
    sections = [(title, *make(w)) for title, held, make in parts if held and (verbose or title != "Large feeds")]
    headline, said = told(w)
    return page(header(w), sections, "What this run shows:" if said else None, said, (), fmt, width,
                answer=headline, verbose=verbose, figure=figure)
