"""PNG plots of sweep and compare reports (matplotlib, the optional viz extra; no TensorFlow here)."""

from tfgraphs.errors import UsageError
from tfgraphs.explain.sweep import series
from tfgraphs.fileio import write_atomic
from tfgraphs.records.sweep import fits as fits_of
from tfgraphs.spec.limits import GRAPHDEF_LIMIT

INSTALL = "pip install -e '.[viz]'"   # tfgraphs is installed from a checkout, so the extra comes from there


def require():
    """Raise UsageError saying how to get matplotlib when it is missing; called before any worker starts."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("--plot needs matplotlib, which is not installed; install it from the repository folder "
                         f"with: {INSTALL}") from None


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")   # files only: no display is needed or wanted
    import matplotlib.pyplot as plt
    return plt


def _save(plt, fig, path):
    fig.tight_layout()
    write_atomic(path, lambda f: fig.savefig(f, format="png", dpi=110), mode="wb")
    plt.close(fig)


def sweep_plot(report, path):
    """Graph bytes and first-run time against batch, log-log, one line per variant, with the 2 GiB line."""
    plt = _pyplot()
    fig, (size_ax, time_ax) = plt.subplots(1, 2, figsize=(12, 4.8))
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
    time_ax.xaxis.set_minor_formatter(plt.NullFormatter())
    for ax in (size_ax, time_ax):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"tfgraphs sweep, {report.config['dtype']}, TensorFlow {report.tf_version}", fontsize=10)
    _save(plt, fig, path)


def compare_plot(report, path):
    """Time of every run of every variant, the first run first, so its spike shows; log scale."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for i, r in enumerate(x for x in report.rows if x.ok):
        trials = [t for t in r.trials if t.status == "ok"] or [r]
        for k, t in enumerate(trials):
            times = [t.first_run_s, *t.runs_s]
            ax.plot(range(1, len(times) + 1), times, "o-", color=f"C{i}", ms=4, lw=1 if k else 1.5,
                    alpha=1 if k == 0 else 0.4, label=r.label if k == 0 else None)
    ax.set(yscale="log", xlabel="run (1 = the first run of a fresh session)", ylabel="seconds",
           title=f"Every run, per variant: batch {report.config['batch']:,}, {report.config['dtype']}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _save(plt, fig, path)


PLOTS = {"compare": compare_plot, "sweep": sweep_plot}
