"""The pages of the commands on the user's own files: inspect and unembed (a GraphDef or SavedModel) and watch (a
script), each from its one record (no TensorFlow here)."""

import shlex

from tfgraphs.findings import files as file_findings
from tfgraphs.findings import watch as watch_findings
from tfgraphs.findings.watch import where
from tfgraphs.render.page import WIDTH, Table, page, time_unit
from tfgraphs.units import fmt_int, shape_text, sig3


SHOWN_OP_TYPES = 20


def summary_table(results):
    """What the file is and the graph's totals, one fact a row."""
    meta = results.meta_graph
    form = results.format + (f", meta graph 1 of {meta['of']} (tags {', '.join(meta['tags']) or 'none'})"
                             if meta else "")
    rows = (("file", results.path), ("format", form), ("file bytes", fmt_int(results.file_bytes)),
            ("graph bytes", fmt_int(results.graph_bytes)), ("nodes", fmt_int(results.nodes)),
            ("function nodes", fmt_int(results.function_nodes)), ("Const nodes", fmt_int(results.const_nodes)),
            ("const bytes", fmt_int(results.const_bytes)), ("headroom to 2 GiB", fmt_int(results.headroom_bytes)))
    return Table(("", ""), rows, keys=2, wrap=((1, 76),))


def render_inspect(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The inspection as text: summary, op types, largest constants, and what they show."""
    ops = results.op_types[:SHOWN_OP_TYPES]
    more = len(results.op_types) - len(ops)
    op_table = Table(("op", "nodes", "bytes", "% of graph"),
                     tuple((o["op"], fmt_int(o["nodes"]), fmt_int(o["bytes"]),
                            f"{o['bytes'] / results.graph_bytes * 100:.1f}") for o in ops), wrap=((0, 40),))
    sections = [("Op types", op_table, f"... and {more} more op types (all of them are in --json)." if more > 0
                 else None)]
    if results.largest_consts:
        rows = tuple((c["name"], c["function"] or "(graph)", c["dtype"], shape_text(c["shape"]), fmt_int(c["bytes"]),
                      f"{c['graph_share'] * 100:.2f}") for c in results.largest_consts)
        sections.append((f"Largest Const nodes ({len(rows)} of {results.const_nodes:,})",
                         Table(("name", "in", "dtype", "shape", "bytes", "% of graph"), rows, keys=4,
                               wrap=((0, 32), (1, 20), (3, 16))),
                         "in = the graph itself or the function whose body holds the node; bytes = the tensor once "
                         "expanded (elements x itemsize); % of graph = the node's share of the serialized GraphDef."))
    return page(summary_table(results), sections, "What this graph shows:",
                file_findings.answer_and_findings(results)[1], (), fmt, width, verbose=verbose)


def unembed_header(results):
    """What was rewritten, then with which TensorFlow on which machine."""
    m = results.machine
    what = ("unembed: a document without the path, OUT and --min-bytes it ran with" if results.path is None else
            f"unembed {results.path} -o {results.out}: Consts of at least {results.min_bytes:,} bytes become variables")
    return what + (f"\nTensorFlow {results.tf_version}, {m.get('cpu_count')} x {m.get('cpu_model', '?')}" if m else "")


def moved_table(results):
    rows = tuple((m["name"], m["dtype"], shape_text(m["shape"]), fmt_int(m["bytes"])) for m in results.moved)
    legend = ("Each is now a non-trainable variable (VariableV2 NAME/variable, read by an Identity still named NAME) "
              "restored from OUT/variables.")
    return Table(("name", "dtype", "shape", "bytes"), rows, keys=1, wrap=((0, 48),)), legend


def left_table(results):
    rows = tuple((x["name"], x["function"], x["dtype"], shape_text(x["shape"]), fmt_int(x["bytes"]))
                 for x in results.left)
    legend = "Left in place: " + "; ".join(dict.fromkeys(x["reason"] for x in results.left)) + "."
    return Table(("name", "function", "dtype", "shape", "bytes"), rows, keys=2, wrap=((0, 36), (1, 24))), legend


def _later(side, scale):
    runs = side["runs_s"]
    if not runs:
        return None
    s = sorted(runs)
    return f"{sig3(s[len(s) // 2] / scale)} ({sig3(s[0] / scale)}-{sig3(s[-1] / scale)}, n={len(s)})"


def before_after_table(results):
    """Sizes always; times and memory when --check ran both graphs."""
    sides = (results.before, results.after)
    unit, scale = time_unit([v for s in sides for v in (s["session_s"], s["load_s"], s["first_run_s"], *s["runs_s"])])

    def t(v):
        return None if v is None else sig3(v / scale)

    body = [["GraphDef bytes", *(f"{s['graph_bytes']:,}" for s in sides)],
            ["largest Const bytes", *(f"{s['largest_const_bytes']:,}" for s in sides)],
            ["bytes moved", "", f"{results.moved_bytes:,}"],
            [f"session {unit}", *(t(s["session_s"]) for s in sides)],
            [f"import or load+restore {unit}", *(t(s["load_s"]) for s in sides)],
            [f"first run {unit}", *(t(s["first_run_s"]) for s in sides)],
            [f"later runs {unit}: median (min-max, n)", *(_later(s, scale) for s in sides)],
            ["peak RSS bytes", *(None if s["peak_rss_bytes"] is None else f"{s['peak_rss_bytes']:,}" for s in sides)]]
    legend = ("before = the original graph, after = the SavedModel written. import = reading and importing a GraphDef; "
              "load+restore = tf.compat.v1.saved_model.loader.load. "
              + ("Each side ran in its own fresh worker on the same seeded feeds." if results.checked
                 else "'-' = not measured: --check runs both graphs."))
    return Table(("", "before", "after"), tuple(map(tuple, body))), legend


def render_unembed(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The whole unembed run as text, its legends and sentences folded to width (None: left whole)."""
    sections = []
    if results.before:
        if results.moved:
            sections.append(("Moved into variables", *moved_table(results)))
        if results.left:
            sections.append(("Inside function bodies", *left_table(results)))
        sections.append(("Before and after", *before_after_table(results)))
    return page(unembed_header(results), sections, "What this run shows:" if results.before else None,
                file_findings.answer_and_findings(results)[1] if results.before else (),
                [f"FAILED {e}" for e in results.errors], fmt, width, verbose=verbose)


def watch_header(results):
    """What ran, then with which TensorFlow on which machine."""
    m = results.machine
    ran = ("tfgraphs watch" + (" --tf1" if results.tf1 else "") + " "
           + shlex.join(results.argv or [results.script or "?"]))
    return ran + (f"\nTensorFlow {results.tf_version}, {m.get('cpu_count')} x {m.get('cpu_model', '?')}" if m else "")


def calls_table(results):
    unit, scale = time_unit([t for c in results.calls for t in (c["first_s"], c["later_median_s"]) if t is not None])

    def t(v):
        return None if v is None else sig3(v / scale)

    rows = tuple((where(results, c["file"], c["line"]), c["kind"], fmt_int(c["n"]), fmt_int(c["signatures"]),
                  t(c["first_s"]), t(c["later_median_s"]), fmt_int(c["feed_bytes_per_call"])) for c in results.calls)
    legend = ("Each line of the script that called Session.run (or a callable): its calls, the distinct fetch/feed "
              "sets it used, its first call and the median of the rest, timed around TensorFlow's own call.")
    return Table(("line", "kind", "calls", "sets", f"first {unit}", f"later median {unit}", "fed bytes/call"), rows,
                 keys=1, wrap=((0, 40),)), legend


def consts_table(results):
    rows = tuple((where(results, c["file"], c["line"]), c["name"], c["dtype"], shape_text(c["shape"]),
                  fmt_int(c["bytes"])) for c in results.consts)
    legend = (f"Consts of at least {results.min_bytes:,} bytes, by the line that made them; bytes = the NodeDef's. "
              "Only a "
              f"Const whose data is at least half its NodeDef is a finding: the others' bytes are names and "
              f"attributes, which no feed removes.")
    return Table(("line", "Const", "dtype", "shape", "bytes"), rows, keys=1, wrap=((0, 40), (1, 30))), legend


def growth_table(results):
    rows = tuple((where(results, g["file"], g["line"]), fmt_int(g["ops"]), fmt_int(g["runs"]),
                  ", ".join(f"{n} {t}" for t, n in sorted(g["op_types"].items()))) for g in results.growth)
    return (Table(("line", "ops", "runs", "op types"), rows, keys=1, wrap=((0, 40), (3, 40))),
            "Ops created after a session ran their graph, by the line that made them: in the gaps between that "
            "session's runs, or after its last. Ops made before a session's first run are what it starts with, and are "
            "not counted. runs = the gaps they fell in.")


def feeds_table(results):
    rows = tuple((where(results, f["file"], f["line"]), f["feed"], fmt_int(f["bytes"]), fmt_int(f["calls"]),
                  fmt_int(f["same_calls"])) for f in results.feeds)
    return (Table(("line", "fed to", "bytes", "calls", "same array"), rows, keys=1, wrap=((0, 40), (1, 30))),
            f"Arrays of at least {results.min_bytes:,} bytes fed; same array = calls given the first call's array "
            "unchanged (the same object, a sample of its bytes unchanged).")


def functions_table(results):
    rows = tuple((where(results, f["file"], f["line"]), f["name"], fmt_int(f["traces"])) for f in results.functions)
    return Table(("line", "tf.function", "traces"), rows, keys=1), "Trace counts as TensorFlow reports them."


def render_watch(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The whole watched run as text: the answer, the call sites, then what else was seen (all with verbose)."""
    parts = (("Session.run calls", results.calls, calls_table), ("Large constants", results.consts, consts_table),
             ("Ops made between a session's runs", results.growth, growth_table),
             ("Large feeds", results.feeds, feeds_table),
             ("tf.function traces", results.functions, functions_table))
    sections = [(title, *make(results)) for title, held, make in parts if held and (verbose or title != "Large feeds")]
    headline, findings = watch_findings.answer_and_findings(results)
    return page(watch_header(results), sections, "What this run shows:" if findings else None, findings, (), fmt, width,
                answer=headline, verbose=verbose, figure=figure)
