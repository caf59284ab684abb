"""Resident-memory growth per phase, in units of X's bytes, and the first run's growth beside the outputs' size."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import ratio
from tfgraphs.spec import network
from tfgraphs.units import fmt_bytes, join

PHASES = ("data", "build", "session", "init", "first_run", "later_runs")


def data_bytes(report):
    """Bytes of X in this run."""
    return network.data_bytes(report.config.batch, report.config.dtype)


def each(rows, fn):
    """'x (a) and y (b)': one value per variant, for sentences that cover several variants at once."""
    return join(f"{fn(r)} ({r.variant})" for r in rows)


def growth_rows(report):
    """Per variant: resident-memory growth of each phase in units of X's bytes (growth / data bytes)."""
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


def activations(row, report):
    """Bytes of the conv, pool and relu outputs: the row's own record, or from shapes for older documents."""
    if row.activation_bytes is not None:
        return row.activation_bytes
    return int(network.activation_bytes(report.config.batch, report.config.dtype))


def first_run_growth(row):
    """Resident-memory growth of the first run over the phase before it, or None."""
    rss = row.rss_bytes
    before = next((rss[p] for p in ("init", "session") if rss.get(p) is not None), None)
    return None if before is None or rss.get("first_run") is None else rss["first_run"] - before


@rests_on("rss_bytes")
def first_run_growth_sentences(ok, report):
    """The first run's memory growth per variant, with the network's outputs beside it for scale: computed from
    shapes, so never subtracted from a measured growth."""
    size = data_bytes(report)
    grew = [r for r in ok if first_run_growth(r) is not None]
    if not grew:
        return []
    act = activations(grew[0], report)
    return ["The first run's resident-memory growth, in units of X's bytes: "
            + each(grew, lambda r: f"{first_run_growth(r) / size:.2f}x")
            + f". For scale only, the conv, pool and relu outputs are {act / size:.2f}x X's bytes ({fmt_bytes(act)}), "
              f"computed from shapes and dtype, not measured: how much of the growth they are, and what else it "
              f"holds, is not measured."]


def build_growth(row, size):
    """Resident-memory growth of the build phase, in units of X's bytes."""
    return (row.rss_bytes.get("build", 0) - row.rss_bytes.get("data", 0)) / size
