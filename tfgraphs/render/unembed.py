"""Render an unembed run: what moved, what stayed, the graph before and after, and what that shows."""

from tfgraphs.findings.unembed import sentences
from tfgraphs.render.page import WIDTH, Table, page, time_unit
from tfgraphs.units import fmt_int, shape_text, sig3


def header(u):
    """What was rewritten, then with which TensorFlow on which machine."""
    m = u.machine
    what = ("unembed: a document without the path, OUT and --min-bytes it ran with" if u.path is None else
            f"unembed {u.path} -o {u.out}: Consts of at least {u.min_bytes:,} bytes become variables")
    return what + (f"\nTensorFlow {u.tf_version}, {m.get('cpu_count')} x {m.get('cpu_model', '?')}" if m else "")


def moved_table(u):
    rows = tuple((m["name"], m["dtype"], shape_text(m["shape"]), fmt_int(m["bytes"])) for m in u.moved)
    legend = ("Each is now a non-trainable variable (VariableV2 NAME/variable, read by an Identity still named NAME) "
              "restored from OUT/variables.")
    return Table(("name", "dtype", "shape", "bytes"), rows, keys=1, wrap=((0, 48),)), legend


def left_table(u):
    rows = tuple((x["name"], x["function"], x["dtype"], shape_text(x["shape"]), fmt_int(x["bytes"])) for x in u.left)
    legend = "Left in place: " + "; ".join(dict.fromkeys(x["reason"] for x in u.left)) + "."
    return Table(("name", "function", "dtype", "shape", "bytes"), rows, keys=2, wrap=((0, 36), (1, 24))), legend


def _later(side, scale):
    runs = side["runs_s"]
    if not runs:
        return None
    s = sorted(runs)
    return f"{sig3(s[len(s) // 2] / scale)} ({sig3(s[0] / scale)}-{sig3(s[-1] / scale)}, n={len(s)})"


def before_after_table(u):
    """Sizes always; times and memory when --check ran both graphs."""
    sides = (u.before, u.after)
    unit, scale = time_unit([v for s in sides for v in (s["session_s"], s["load_s"], s["first_run_s"], *s["runs_s"])])

    def t(v):
        return None if v is None else sig3(v / scale)

    body = [["GraphDef bytes", *(f"{s['graph_bytes']:,}" for s in sides)],
            ["largest Const bytes", *(f"{s['largest_const_bytes']:,}" for s in sides)],
            ["bytes moved", "", f"{u.moved_bytes:,}"],
            [f"session {unit}", *(t(s["session_s"]) for s in sides)],
            [f"import or load+restore {unit}", *(t(s["load_s"]) for s in sides)],
            [f"first run {unit}", *(t(s["first_run_s"]) for s in sides)],
            [f"later runs {unit}: median (min-max, n)", *(_later(s, scale) for s in sides)],
            ["peak RSS bytes", *(None if s["peak_rss_bytes"] is None else f"{s['peak_rss_bytes']:,}" for s in sides)]]
    legend = ("before = the original graph, after = the SavedModel written. import = reading and importing a GraphDef; "
              "load+restore = tf.compat.v1.saved_model.loader.load. "
              + ("Each side ran in its own fresh worker on the same seeded feeds." if u.checked
                 else "'-' = not measured: --check runs both graphs."))
    return Table(("", "before", "after"), tuple(map(tuple, body))), legend


def render(u, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The whole unembed run as text, its legends and sentences folded to width (None: left whole)."""
    sections = []
    if u.before:
        if u.moved:
            sections.append(("Moved into variables", *moved_table(u)))
        if u.left:
            sections.append(("Inside function bodies", *left_table(u)))
        sections.append(("Before and after", *before_after_table(u)))
    return page(header(u), sections, "What this run shows:" if u.before else None,
                sentences(u) if u.before else (), [f"FAILED {e}" for e in u.errors], fmt, width, verbose=verbose)
