"""Figures of compare, explain, sweep, shapes, pitfalls and watch results (matplotlib, the optional viz extra; no
TensorFlow here): each titled for what it shows, units on its axes, one colour per variant or mode in every figure."""

import importlib
import io

from tfgraphs.errors import UsageError
from tfgraphs.findings.explain import grouped
from tfgraphs.findings.explain import logged_spans
from tfgraphs.findings.sweep import series
from tfgraphs.fileio import write_atomic
from tfgraphs.records.explain import ExplainedGraph
from tfgraphs.records.judge import Summary
from tfgraphs.records.sweep import fits as fits_of
from tfgraphs.spec.network import GRAPHDEF_LIMIT, VARIANTS
from tfgraphs.spec.pitfalls import GROWTH_CASES
from tfgraphs.spec.shapes import MODES

INSTALL = "pip install -e '.[viz]'"   # tfgraphs is installed from a checkout, so the extra comes from there
# Okabe and Ito's palette, told apart with any common colour-vision deficiency; black is kept for markers.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999", "#F0E442")


def colour(name):
    """The colour of a variant or mode (a row label's first word), the same in every figure."""
    base = str(name).split()[0].split("[")[0]
    # Variants and modes never share a figure: each list has the palette to itself.
    names = list(VARIANTS) if base in VARIANTS else list(MODES)
    return PALETTE[(names.index(base) if base in names else sum(map(ord, base))) % len(PALETTE)]


def require():
    """Raise UsageError saying how to get matplotlib when it is missing; called before any worker starts."""
    if not available():
        raise UsageError("--plot needs matplotlib, which is not installed; install it from the repository folder "
                         f"with: {INSTALL}")


def available():
    """True when matplotlib can be imported."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        return False
    return True


def png(fig):
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


def _figure(**size):
    # A Figure made without pyplot draws on its own canvas: the user's backend and open figures are left alone.
    from matplotlib.figure import Figure
    return Figure(**size)


def _finish(fig, ax, legend_size=8, **legend):
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size, **legend)
    fig.tight_layout()
    return fig


def _below(fig, ax, handles=None, ncol=3):
    """Grid, and the legend under the axes, where it hides no bar."""
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28 if handles else -0.3),
              ncol=ncol, frameon=False)
    fig.tight_layout()
    return fig


def save(fig, path):
    """Write fig to path as PNG, atomically."""
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=110), mode="wb")


def sweep_figure(results):
    """Graph bytes and first-run time against batch, log-log, one line per variant, with the 2 GiB line."""
    from matplotlib.ticker import NullFormatter

    fig = _figure(figsize=(12, 4.8))
    size_ax, time_ax = fig.subplots(1, 2)
    fits = {f.variant: f for f in fits_of(results)}
    probe = results.tf_error or {}
    reach = max([f.max_batch for f in fits.values() if f.max_batch] + [max(r.batch for r in results.rows)])
    for i, v in enumerate(results.config.variants):
        rows = series(results, v)
        if not rows:
            continue
        color = colour(v)
        batches = [r.batch for r in rows]
        size_ax.plot(batches, [r.graph_bytes for r in rows], "o-", color=color, label=v)
        f = fits.get(v)
        if f is not None:
            xs = [min(batches), reach]
            size_ax.plot(xs, [f.bytes_per_example * x + f.overhead_bytes for x in xs], "--", color=color, lw=1,
                         label=f"{v} fit, extrapolated: {f.bytes_per_example:,} B/example + {f.overhead_bytes:,} B")
        time_ax.plot(batches, [r.first_run_s for r in rows], "o-", color=color, label=f"{v} first run")
        time_ax.plot(batches, [r.later_median_s for r in rows], "s:", color=color, lw=1, ms=4,
                     label=f"{v} median later run")
    size_ax.axhline(GRAPHDEF_LIMIT, color="red", lw=1, label="2 GiB serialized-GraphDef limit")
    if probe.get("refused"):
        f = fits[probe["variant"]]
        size_ax.plot([probe["batch"]], [f.bytes_per_example * probe["batch"] + f.overhead_bytes], "x", color="red",
                     ms=10, mew=2, label=f"TensorFlow refused X's tensor at batch {probe['batch']:,}")
    size_ax.set(xscale="log", yscale="log", xlabel="batch (examples)", ylabel="serialized GraphDef (bytes)",
                title="Graph size against batch")
    time_ax.set(xscale="log", yscale="log", xlabel="batch (examples)", ylabel="seconds",
                title="Run time against batch")
    measured = sorted({r.batch for r in results.rows if r.ok})
    time_ax.set_xticks(measured, [f"{b:,}" for b in measured])
    time_ax.xaxis.set_minor_formatter(NullFormatter())
    for ax in (size_ax, time_ax):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"tfgraphs sweep, {results.config.dtype}, TensorFlow {results.tf_version}", fontsize=10)
    fig.tight_layout()
    return fig


PHASES = (("build_s", "build", None), ("session_s", "session", "//"), ("init_s", "init", ".."),
          ("first_run_s", "first run", "xx"))


def compare_figure(results):
    """Time to the first result per variant, stacked by phase, with the median later run beside it; linear seconds."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig = _figure(figsize=(9, 1.9 + 0.5 * max(1, sum(r.ok for r in results.rows))))
    ax = fig.subplots()
    ok = [r for r in results.rows if r.ok][::-1]
    for y, r in enumerate(ok):
        left = 0.0
        for name, _, hatch in PHASES:
            value = getattr(r, name) or 0.0
            ax.barh(y, value, left=left, height=0.6, color=colour(r.label), alpha=0.45 if hatch else 0.9,
                    hatch=hatch, edgecolor="black", lw=0.4)
            left += value
        ax.plot([r.later_median_s], [y], "|", color="black", ms=16, mew=2.5)
    ax.set_yticks(range(len(ok)), [r.label for r in ok])
    ax.set(xlabel="seconds", title=f"Time to the first result, by phase: batch {results.config.batch:,}, "
                                   f"{results.config.dtype}, TensorFlow {results.tf_version}")
    handles = [Patch(facecolor="#888888", alpha=0.45 if hatch else 0.9, hatch=hatch, edgecolor="black", label=label)
               for _, label, hatch in PHASES]
    handles.append(Line2D([], [], marker="|", color="black", ls="", ms=12, mew=2.5, label="median later run"))
    return _below(fig, ax, handles, ncol=5)


def explain_figure(results):
    """Where each default-config first run went, as TensorFlow's log timed it: its stages by the log's lines (older
    documents: Grappler's largest passes, then the rest); without that log, first runs per preset."""
    rows = [r for r in results.rows if r.ok and r.preset == "default" and r.first_run_inside and r.logged_first_run_s]
    if not rows:
        return _presets_figure(results)
    fig = _figure(figsize=(9, 2.2 + 0.6 * len(rows)))
    ax = fig.subplots()
    parts = {r.label: _stage_parts(r) or _pass_parts(r, rows) for r in rows}
    names = list(dict.fromkeys(name for p in parts.values() for name, _ in p))
    for y, r in enumerate(rows):
        left, by = 0.0, dict(parts[r.label])
        for k, name in enumerate(names):
            grey = name.startswith("not in the log") or name == "outside the log's lines"
            ax.barh(y, by.get(name, 0.0), left=left, height=0.6, color="#dddddd" if grey else PALETTE[k % len(PALETTE)],
                    edgecolor="black", lw=0.4, label=name if y == 0 else None)
            left += by.get(name, 0.0)
    ax.set_yticks(range(len(rows)), [r.label for r in rows])
    ax.set(xlabel="seconds of the logged first run",
           title=f"Where the first run went, as TensorFlow logged it (default config, TensorFlow {results.tf_version})")
    return _below(fig, ax)


def _stage_parts(row):
    """[(stage, seconds)] of the row's logged first run by its log's lines, the run's step left out; [] without."""
    parts = {}
    for s in logged_spans(row):
        name = "the run" if s["stage"].startswith("the run (step") else s["stage"]
        parts[name] = parts.get(name, 0.0) + s["seconds"]
    if parts:
        parts["outside the log's lines"] = max(0.0, row.logged_first_run_s - sum(parts.values()))
    return list(parts.items())


def _pass_parts(row, rows):
    """[(pass, seconds)] of the row's Grappler passes, the four largest of any row named, then the rest of the run."""
    def passes(r):
        return grouped([s for s in r.first_run_inside if s["stage"].startswith("grappler/") and s["seconds"] is not None])
    top = list(dict.fromkeys(stage for r in rows for stage, _ in passes(r)[:4]))
    by = dict(passes(row))
    return ([(stage.split("/", 1)[1], by.get(stage, 0.0)) for stage in top]
            + [("other Grappler passes", sum(t for stage, t in by.items() if stage not in top)),
               ("not in the log (the rest of the run)", max(0.0, row.logged_first_run_s - sum(by.values())))])


def _presets_figure(results):
    """First run against the median later run of every variant under each preset, log scale."""
    fig = _figure(figsize=(9, 4.8))
    ax = fig.subplots()
    ok = [r for r in results.rows if r.ok]
    presets = list(dict.fromkeys(r.preset for r in ok))
    name_of = {id(r): r.variant + (" remote" if r.remote else "") for r in ok}
    labels = list(dict.fromkeys(name_of.values()))
    width = 0.8 / max(len(labels), 1)
    for i, name in enumerate(labels):
        rows = {r.preset: r for r in ok if name_of[id(r)] == name}
        xs = [p + i * width for p, preset in enumerate(presets) if preset in rows]
        ax.bar(xs, [rows[p].first_run_s for p in presets if p in rows], width, color=colour(name), label=f"{name} first run")
        ax.plot(xs, [Summary.of(rows[p].runs_s).median for p in presets if p in rows], "_", color="black", ms=14,
                mew=2, label="median later run" if i == 0 else None)
    ax.set_xticks([p + width * (len(labels) - 1) / 2 for p in range(len(presets))], presets)
    batch = "-" if isinstance(results.config, ExplainedGraph) else results.config.batch   # a user's graph has none
    ax.set(yscale="log", ylabel="seconds", xlabel="session preset",
           title=f"First run per preset: batch {batch}, TensorFlow {results.tf_version}")
    return _finish(fig, ax)


def shapes_figure(results):
    """Time per call against input length: each mode's pass 1 (every length new) solid, its later passes dotted, the
    device's switch off dash-dotted; the first length, the worker's start-up, left out as the findings leave it."""
    fig = _figure(figsize=(9, 5.2))
    ax = fig.subplots()
    start, base = results.config.start, results.rows[0].env
    for m in (r for r in results.rows if r.ok and r.times_s):
        off = m.env != base
        for k, times in enumerate(m.times_s):
            style = ("x-." if off else "o-") if k == 0 else ":"
            ax.plot(range(start + 1, start + len(times)), times[1:], style, color=colour(m.mode), ms=3,
                    lw=1.4 if k == 0 else 1, alpha=0.6 if off else 1,
                    label=f"{m.mode}{' (switch off)' if off else ''}, {'pass 1' if k == 0 else f'pass {k + 1}'}")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set(yscale="log", xlabel="input length", ylabel="seconds per call",
           title=f"What a new length costs, per mode (pass 1: every length new); TensorFlow {results.tf_version}")
    return _finish(fig, ax, 7, ncol=2, loc="upper right")


def pitfalls_figure(results):
    """The graph-growth lesson's step times, leaky against fixed, per variant (log seconds); else the executor-cache
    cases' times."""
    growth = [r for r in results.rows if r.ok and r.lesson == "graph-growth"]
    cache = [r for r in results.rows if r.ok and r.lesson == "executor-cache"]
    fig = _figure(figsize=(9, 4.8))
    ax = fig.subplots()
    if growth:
        for r in growth:
            for case, style in zip(GROWTH_CASES, ("o-", "s:")):
                c = r.case(case)
                ax.plot(range(1, len(c.step_s) + 1), c.step_s, style, color=colour(r.variant), ms=4,
                        label=f"{r.variant}: {case}")
        ax.set_xticks(range(1, max(len(r.case(GROWTH_CASES[0]).step_s) for r in growth) + 1))
        ax.set(yscale="log", xlabel="step", ylabel="seconds per step",
               title="graph-growth: a step that creates an op, against one that reuses it")
    elif cache:
        names = ("first", "repeat", "new fetches", "new fetches repeat", "callable first call", "callable repeat")
        width = 0.8 / len(cache)
        for i, r in enumerate(cache):
            ax.bar([k + i * width for k in range(len(names))], [r.case(n).seconds for n in names], width,
                   color=colour(r.variant), label=r.variant)
        ax.set_xticks([k + width * (len(cache) - 1) / 2 for k in range(len(names))], names, rotation=20)
        ax.set(yscale="log", ylabel="seconds", title="executor-cache: each kind of run, against its repeat")
    else:
        ax.text(0.5, 0.5, "no graph-growth or executor-cache lesson in this run", ha="center", transform=ax.transAxes)
        ax.set(title="pitfalls")
        return fig
    return _finish(fig, ax)


def watch_figure(results):
    """Each call site's runs in order (log seconds), beside the bytes of each large Const by the line that made it."""
    from tfgraphs.findings.watch import where

    fig = _figure(figsize=(10, 4.4))
    runs, held = fig.subplots(1, 2, gridspec_kw={"width_ratios": (3, 2)})
    for i, c in enumerate(results.calls):
        runs.plot(range(1, len(c["times_s"]) + 1), c["times_s"], "o-", ms=4, color=PALETTE[i % len(PALETTE)],
                  label=where(results, c["file"], c["line"]))
    runs.set(yscale="log", xlabel="run of the call site", ylabel="seconds", title="each Session.run, by its line")
    runs.xaxis.get_major_locator().set_params(integer=True)
    if results.calls:
        runs.legend(fontsize=8, frameon=False)
    lines = [where(results, c["file"], c["line"]) for c in results.consts]
    held.barh(lines, [c["bytes"] / 1e6 for c in results.consts], height=0.5, color=PALETTE[5])
    held.set(xlabel="MB in the GraphDef", title=f"Consts of {results.min_bytes or 0:,} bytes or more")
    if not results.consts:
        held.text(0.5, 0.5, "none", ha="center", transform=held.transAxes)
    fig.tight_layout()
    return fig

