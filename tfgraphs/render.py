"""Render reports as text tables (tabulate) with a legend under each; no TensorFlow here."""

from tabulate import tabulate

from tfgraphs import why
from tfgraphs.stats import Summary
from tfgraphs.units import fmt_bytes

_UNITS = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6))


def time_unit(values):
    """One unit for a whole table, chosen from the median magnitude of its times."""
    values = sorted(v for v in values if v)
    if not values:
        return _UNITS[1]
    mid = values[len(values) // 2]
    return next((u for u in _UNITS if mid >= u[1]), _UNITS[-1])


def _t(value, unit):
    return None if value is None else value / unit[1]


def _x(value, digits=2):
    return None if value is None else round(value, digits)


def machine_line(report):
    """Where it ran: TensorFlow, Python, CPUs and platform, as every report's header ends."""
    m = report.machine
    return (f"TensorFlow {report.tf_version}, Python {report.python}, {m.get('cpu_count')} x "
            f"{m.get('cpu_model', '?')}, {m.get('platform', '?')}")


def header(report):
    """One line naming what ran and where."""
    c = report.config
    trials = c.get("trials", 1)
    return (f"{report.command}: batch {c['batch']:,}, {c['dtype']}, {c['runs']} later runs x {trials} "
            f"trial{'s' if trials != 1 else ''}, seed {c.get('seed', 0)} | {machine_line(report)}")


def row_label(row):
    """A compare/explain row's name: the variant, with its preset when not the default."""
    return row.variant + (f" [{row.preset}]" if row.preset != "default" else "")


def failures(rows, label=row_label):
    """Lines naming each failed row and why."""
    return [f"FAILED {label(r)}: {r.error}" for r in rows if not r.ok]


def phase_table(report, fmt):
    """Phase timings, sizes and memory per variant, in one time unit."""
    ok = [r for r in report.rows if r.ok]
    times = [v for r in ok for v in (r.build_s, r.serialize_s, r.session_s, r.init_s, r.first_run_s, *r.runs_s)]
    unit = time_unit(times)
    u = unit[0]
    headers = ["variant", "graph bytes", "nodes", "const bytes", f"build {u}", f"serialize {u}", f"session {u}",
               f"init {u}",
               f"first run {u}", f"later min {u}", f"later median {u}", f"later max {u}", "n", "peak RSS", "max abs err"]
    body = []
    for r in ok:
        s = Summary.of(r.runs_s)
        body.append([r.variant, r.graph_bytes, r.nodes, r.const_bytes, _t(r.build_s, unit),
                     _t(r.serialize_s, unit), _t(r.session_s, unit),
                     _t(r.init_s, unit), _t(r.first_run_s, unit), _t(s.min, unit), _t(s.median, unit),
                     _t(s.max, unit), s.n, fmt_bytes(r.peak_rss_bytes), f"{r.max_abs_err:.1e}"])
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", floatfmt=".3f", missingval="-",
                     disable_numparse=[len(headers) - 1])
    legend = (f"Times in {u}, each phase timed alone with perf_counter in a fresh worker per variant; serialize = "
              f"GraphDef to bytes, timed after the runs; later = the runs after the first (min/median/max over n). "
              f"graph bytes = serialized GraphDef; const bytes = bytes "
              f"held in Const tensors; peak RSS = the worker's peak resident memory; max abs err = largest "
              f"difference from the NumPy reference.")
    return table, legend


def why_table(report, fmt):
    """The "why" table: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    headers = ["variant", "embedded bytes", "graph / data", "max batch < 2 GiB", "first / later", "peak RSS / data"]
    body = [[r["variant"], r["embedded_bytes"], f"{r['graph_over_data']:.4f}",
             "no limit" if r["max_batch"] is None else f"{r['max_batch']:,}",
             _x(r["first_over_later"], 1), _x(r["peak_over_data"], 1)] for r in why.why_rows(report)]
    table = tabulate(body, headers, tablefmt=fmt, intfmt=",", floatfmt=".1f", missingval="-",
                     disable_numparse=[2, 3], colalign=("left", "right", "right", "right", "right", "right"))
    legend = ("data = the bytes of X; max batch = the largest batch whose GraphDef stays under 2 GiB, from this "
              "run's bytes per example (no limit when X is not in the graph); first / later = first run over the "
              "median later run.")
    return table, legend


def copies_table(report, fmt):
    """Resident memory each phase added, in copies of X."""
    rows = why.copies_rows(report)
    phases = [p for p in why.PHASES if any(r[p] is not None for r in rows)]
    headers = ["variant", *(p.replace("_", " ") for p in phases), "peak"]
    body = [[r["variant"], *(_x(r[p], 2) for p in phases), _x(r["peak"], 1)] for r in rows]
    table = tabulate(body, headers, tablefmt=fmt, missingval="-")
    legend = ("Growth of the worker's resident memory during each phase divided by the bytes of X (1.00 = one more "
              "copy of the data); peak = peak resident memory / bytes of X, TensorFlow's own footprint included.")
    return table, legend


def render_compare(report, fmt="simple"):
    """The whole compare report as text."""
    parts = [header(report), ""]
    if any(r.ok for r in report.rows):
        for title, (table, legend) in (("Phases", phase_table(report, fmt)), ("Why", why_table(report, fmt)),
                                       ("Memory: copies of X added per phase", copies_table(report, fmt))):
            parts += [title, table, legend, ""]
        parts += ["What this run shows:"] + [f"- {s}" for s in why.sentences(report)] + [""]
    parts += failures(report.rows)
    return "\n".join(parts).rstrip() + "\n"


def render(report, fmt="simple"):
    """Render any saved report by its command."""
    if report.command == "explain":
        from tfgraphs.render_explain import render_explain
        return render_explain(report, fmt)
    if report.command == "sweep":
        from tfgraphs.render_sweep import render_sweep
        return render_sweep(report, fmt)
    if report.command == "shapes":
        from tfgraphs.render_shapes import render_shapes
        return render_shapes(report, fmt)
    return render_compare(report, fmt)
