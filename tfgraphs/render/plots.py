"""Figures of compare, explain, sweep and shapes reports (matplotlib, the optional viz extra; no TensorFlow here)."""

import importlib

from tfgraphs.errors import UsageError
from tfgraphs.findings.sweep import series
from tfgraphs.fileio import write_atomic
from tfgraphs.records.stats import Summary
from tfgraphs.records.sweep import fits as fits_of
from tfgraphs.spec.limits import GRAPHDEF_LIMIT

INSTALL = "pip install -e '.[viz]'"   # tfgraphs is installed from a checkout, so the extra comes from there


def require():
    """Raise UsageError saying how to get matplotlib when it is missing; called before any worker starts."""
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        raise UsageError("--plot needs matplotlib, which is not installed; install it from the repository folder "
                         f"with: {INSTALL}") from None


def _figure(**size):
    # A Figure made without pyplot draws on its own canvas: the user's backend and open figures are left alone.
    from matplotlib.figure import Figure
    return Figure(**size)


def _finish(fig, ax, legend_size=8, **legend):
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=legend_size, **legend)
    fig.tight_layout()
    return fig


def save(fig, path):
    """Write fig to path as PNG, atomically."""
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=110), mode="wb")


def sweep_figure(report):
    """Graph bytes and first-run time against batch, log-log, one line per variant, with the 2 GiB line."""
    from matplotlib.ticker import NullFormatter

    fig = _figure(figsize=(12, 4.8))
    size_ax, time_ax = fig.subplots(1, 2)
    fits = {f.variant: f for f in fits_of(report)}
    probe = report.extra.get("tf_error") or {}
    reach = max([f.max_batch for f in fits.values() if f.max_batch] + [max(r.batch for r in report.rows)])
    for i, v in enumerate(report.config["variants"]):
        rows = series(report, v)
        if not rows:
            continue
        color = f"C{i}"
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
    measured = sorted({r.batch for r in report.rows if r.ok})
    time_ax.set_xticks(measured, [f"{b:,}" for b in measured])
    time_ax.xaxis.set_minor_formatter(NullFormatter())
    for ax in (size_ax, time_ax):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"tfgraphs sweep, {report.config['dtype']}, TensorFlow {report.tf_version}", fontsize=10)
    fig.tight_layout()
    return fig


def compare_figure(report):
    """Time of every run of every variant, the first run first, so its spike shows; log scale."""
    fig = _figure(figsize=(8, 4.8))
    ax = fig.subplots()
    for i, r in enumerate(x for x in report.rows if x.ok):
        trials = [t for t in r.trials if t.status == "ok"] or [r]
        for k, t in enumerate(trials):
            times = [t.first_run_s, *t.runs_s]
            ax.plot(range(1, len(times) + 1), times, "o-", color=f"C{i}", ms=4, lw=1 if k else 1.5,
                    alpha=1 if k == 0 else 0.4, label=r.label if k == 0 else None)
    ax.set(yscale="log", xlabel="run (1 = the first run of a fresh session)", ylabel="seconds",
           title=f"Every run, per variant: batch {report.config['batch']:,}, {report.config['dtype']}")
    return _finish(fig, ax)


def explain_figure(report):
    """First run against the median later run of every variant under each preset, log scale."""
    fig = _figure(figsize=(9, 4.8))
    ax = fig.subplots()
    ok = [r for r in report.rows if r.ok]
    presets = list(dict.fromkeys(r.preset for r in ok))
    name_of = {id(r): r.variant + (" remote" if r.remote else "") for r in ok}
    labels = list(dict.fromkeys(name_of.values()))
    width = 0.8 / max(len(labels), 1)
    for i, name in enumerate(labels):
        rows = {r.preset: r for r in ok if name_of[id(r)] == name}
        xs = [p + i * width for p, preset in enumerate(presets) if preset in rows]
        ax.bar(xs, [rows[p].first_run_s for p in presets if p in rows], width, color=f"C{i}", label=f"{name} first run")
        ax.plot(xs, [Summary.of(rows[p].runs_s).median for p in presets if p in rows], "_", color="black", ms=14,
                mew=2, label="median later run" if i == 0 else None)
    ax.set_xticks([p + width * (len(labels) - 1) / 2 for p in range(len(presets))], presets)
    ax.set(yscale="log", ylabel="seconds", xlabel="session preset",
           title=f"First run per preset: batch {report.config.get('batch', '-')}, TensorFlow {report.tf_version}")
    return _finish(fig, ax)


def shapes_figure(report):
    """Time per call against input length, for each mode's first and later passes, log scale."""
    fig = _figure(figsize=(9, 4.8))
    ax = fig.subplots()
    start = report.config["start"]
    for i, m in enumerate(r for r in report.rows if r.ok and r.times_s):
        for k, times in enumerate(m.times_s):
            ax.plot(range(start, start + len(times)), times, "o-" if k == 0 else ":", color=f"C{i}", ms=3, lw=1,
                    label=f"{m.mode}{' (switch off)' if m.env != report.rows[0].env else ''}, pass {k + 1}")
    ax.set(yscale="log", xlabel="input length", ylabel="seconds per call",
           title=f"Each new length, per mode: TensorFlow {report.tf_version}")
    return _finish(fig, ax, 7, ncol=2)


FIGURES = {"compare": compare_figure, "sweep": sweep_figure, "explain": explain_figure, "shapes": shapes_figure}
