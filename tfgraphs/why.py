"""Explain a compare report from its own numbers: the "why" table, memory copies, and sentences."""

from tfgraphs import limits, network
from tfgraphs.stats import median_or_none, ratio

PHASES = ("data", "build", "session", "init", "first_run", "later_runs")
EMBEDDED_SHARE = 0.9   # a graph holding at least this share of X's bytes in Const tensors holds X


def fmt_s(seconds):
    """A duration with a unit that suits it."""
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.1f} ms"


def fmt_bytes(n):
    """Bytes in decimal units (kB, MB, GB)."""
    if n is None:
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def data_bytes(report):
    return network.data_bytes(report.config["batch"], report.config["dtype"])


def later_median(row):
    return median_or_none(row.runs_s)


def holds_data(row, report):
    """True when the row's Const tensors hold (nearly) all of X."""
    return row.const_bytes is not None and row.const_bytes >= EMBEDDED_SHARE * data_bytes(report)


def max_batch(row, report):
    """Largest batch under 2 GiB for this row's graph (X's bytes plus the measured rest); None if X is not in it."""
    if not holds_data(row, report):
        return None
    return (limits.GRAPHDEF_LIMIT - 1 - overhead_bytes(row, report)) // network.example_bytes(report.config["dtype"])


def overhead_bytes(row, report):
    """GraphDef bytes besides X itself: the network's nodes, W and protobuf framing."""
    return row.graph_bytes - data_bytes(report)


def why_rows(report):
    """Per variant: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    size = data_bytes(report)
    out = []
    for r in report.rows:
        if not r.ok:
            continue
        limit = max_batch(r, report)
        out.append({
            "variant": r.variant,
            "embedded_bytes": r.const_bytes,
            "graph_over_data": ratio(r.graph_bytes, size),
            "max_batch": limit,
            "first_over_later": ratio(r.first_run_s, later_median(r)),
            "peak_over_data": ratio(r.peak_rss_bytes, size),
        })
    return out


def copies_rows(report):
    """Per variant: memory each phase added, in copies of X (growth of resident memory / data bytes)."""
    size = data_bytes(report)
    out = []
    for r in report.rows:
        if not r.ok or not r.rss_bytes:
            continue
        row = {"variant": r.variant}
        previous = r.rss_bytes.get("start")
        for phase in PHASES:
            now = r.rss_bytes.get(phase)
            row[phase] = None if now is None or previous is None else (now - previous) / size
            previous = now if now is not None else previous
        row["peak"] = ratio(r.peak_rss_bytes, size)
        out.append(row)
    return out


def _names(rows):
    names = [r.variant for r in rows]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def sentences(report):
    """Sentences that hold for this report's numbers; each one disappears or changes when they do not."""
    ok = [r for r in report.rows if r.ok]
    if not ok:
        return ["No variant produced a result, so there is nothing to explain."]
    size = data_bytes(report)
    embedded = [r for r in ok if holds_data(r, report)]
    fed = [r for r in ok if not holds_data(r, report)]
    base = next((r for r in fed if r.variant == "placeholder"), fed[0] if fed else None)
    said = []

    if embedded:
        biggest = max(r.graph_bytes for r in embedded)
        said.append(f"The {_names(embedded)} GraphDef{'s are' if len(embedded) > 1 else ' is'} up to "
                    f"{fmt_bytes(biggest)}, {biggest / size:.2f}x the {fmt_bytes(size)} of X: the data is stored in the graph.")
    if fed:
        small = max(r.graph_bytes for r in fed)
        said.append(f"The {_names(fed)} GraphDef{'s are' if len(fed) > 1 else ' is'} at most {small:,} bytes: X is not in "
                    f"{'them' if len(fed) > 1 else 'it'}, so the graph does not grow with the batch.")

    slowest_session = max(ok, key=lambda r: r.session_s or 0.0)
    fastest_first = min(r.first_run_s for r in ok)
    if slowest_session.session_s is not None and slowest_session.session_s < 0.05 * fastest_first:
        said.append(f"Creating the session took at most {fmt_s(slowest_session.session_s)} in every variant, "
                    f"under 5% of the fastest first run ({fmt_s(fastest_first)}): the time is not spent there.")

    if base is not None:
        for r in embedded:
            said.extend(_against_base(r, base, size))
    said.extend(_remedy(ok, base))

    ready = [(r.variant, (r.build_s or 0) + (r.session_s or 0) + (r.init_s or 0) + r.first_run_s) for r in ok]
    said.append("Time to the first result (build + session + init + first run): "
                + ", ".join(f"{v} {fmt_s(t)}" for v, t in ready) + ".")

    if embedded:
        r = embedded[0]
        limit = max_batch(r, report)
        said.append(f"In {report.config['dtype']} each example adds {network.example_bytes(report.config['dtype']):,} "
                    f"bytes to an embedded graph and {r.variant}'s other nodes take {overhead_bytes(r, report):,}, "
                    f"so it fits under the 2 GiB GraphDef limit up to batch {limit:,}, "
                    f"{limit / report.config['batch']:.1f}x this run's batch.")
    return said


def _against_base(r, base, size):
    """How an embedded variant compares with the fed baseline, phase by phase."""
    said = []
    if r.build_s and base.build_s and r.build_s > 3 * base.build_s:
        grown = r.rss_bytes.get("build", 0) - r.rss_bytes.get("data", 0)
        copy = f", and added {grown / size:.1f} copies of X to memory" if grown >= 0.5 * size else ""
        said.append(f"Building {r.variant} took {fmt_s(r.build_s)} against {fmt_s(base.build_s)} for {base.variant} "
                    f"({r.build_s / base.build_s:.0f}x){copy}: the array is converted into a TensorProto inside the graph.")
    r_later, b_later = later_median(r), later_median(base)
    r_excess, b_excess = r.first_run_s - r_later, base.first_run_s - b_later
    r_ratio, b_ratio = r.first_run_s / r_later, base.first_run_s / b_later
    if r_ratio >= 2 and r_excess > 2 * max(b_excess, 0.0):
        said.append(f"{r.variant}'s first run took {fmt_s(r.first_run_s)}, {r_ratio:.1f}x its median later run "
                    f"({fmt_s(r_later)}); {base.variant}'s first run was {b_ratio:.1f}x its later runs. "
                    f"The extra {fmt_s(r_excess - max(b_excess, 0.0))} is paid once, before the first result "
                    f"(see `tfgraphs explain` for what it is spent on).")
    else:
        said.append(f"In this run embedding X did not make the first run stand out: {r.variant}'s first run was "
                    f"{r_ratio:.1f}x its later runs, against {b_ratio:.1f}x for {base.variant}.")
    speed = r_later / b_later
    if abs(speed - 1) < 0.1:
        said.append(f"Once the first run is paid, {r.variant} and {base.variant} run at about the same speed "
                    f"(median {fmt_s(r_later)} vs {fmt_s(b_later)}).")
    else:
        said.append(f"Later runs of {r.variant} take {speed:.2f}x the time of {base.variant}'s "
                    f"(median {fmt_s(r_later)} vs {fmt_s(b_later)}).")
    if r.peak_rss_bytes and base.peak_rss_bytes:
        extra = r.peak_rss_bytes - base.peak_rss_bytes
        more = f"{fmt_bytes(extra)} more" if extra >= 0 else f"{fmt_bytes(-extra)} less"
        said.append(f"{r.variant} peaked at {fmt_bytes(r.peak_rss_bytes)} ({r.peak_rss_bytes / size:.1f}x X), "
                    f"{more} than {base.variant} ({extra / size:+.1f} copies of X).")
    return said


def _remedy(ok, base):
    """What the variable remedy bought against feeding X on every run."""
    var = next((r for r in ok if r.variant == "variable"), None)
    if var is None or base is None or base.variant != "placeholder" or var.init_s is None:
        return []
    v_later, p_later = later_median(var), later_median(base)
    change = (v_later - p_later) / p_later * 100
    trend = f"{-change:.0f}% less" if change < 0 else f"{change:.0f}% more"
    return [f"variable paid {fmt_s(var.init_s)} once to load X; its later runs need no feed and took {fmt_s(v_later)} "
            f"median, {trend} than placeholder's {fmt_s(p_later)}, with a GraphDef of {var.graph_bytes:,} bytes."]
