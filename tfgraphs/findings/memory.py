"""Resident-memory growth per phase, in units of X's bytes, and the first run's growth split into activations."""

from tfgraphs.findings.evidence import rests_on
from tfgraphs.records.stats import ratio
from tfgraphs.spec import network
from tfgraphs.units import fmt_bytes, join

PHASES = ("data", "build", "session", "init", "first_run", "later_runs")


def data_bytes(report):
    return network.data_bytes(report.config["batch"], report.config["dtype"])


def _each(rows, fn):
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
    return int(network.activation_bytes(report.config["batch"], report.config["dtype"]))


def first_run_growth(row):
    """Resident-memory growth of the first run over the phase before it, or None."""
    rss = row.rss_bytes
    before = next((rss[p] for p in ("init", "session") if rss.get(p) is not None), None)
    return None if before is None or rss.get("first_run") is None else rss["first_run"] - before


@rests_on("rss_bytes")
def first_run_growth_sentences(ok, report):
    """The first run's memory growth split into activations and the rest, for rows that grew by at least them."""
    size = data_bytes(report)
    split, short = [], []
    for r in ok:
        grown, act = first_run_growth(r), activations(r, report)
        if grown is None:
            continue
        (split if grown >= act else short).append((r, grown, act))
    said = []
    if split:
        act = split[0][2]
        said.append("The first run's resident-memory growth, in units of X's bytes: "
                    + _each([r for r, _, _ in split], lambda r: _growth_parts(r, report, size))
                    + f"; activations = the conv, pool and relu outputs ({fmt_bytes(act)}, "
                      f"{act / size:.2f}x, from shapes and dtype), the rest is everything else the run kept.")
    if short:
        said.append(f"The first run of {join(r.variant for r, _, _ in short)} grew resident memory by less than its "
                    f"activations ({_each([r for r, _, _ in short], lambda r: fmt_bytes(first_run_growth(r)))}): "
                    f"so the growth cannot be split (memory held from earlier phases may have been reused; not measured).")
    return said


def _growth_parts(r, report, size):
    grown, act = first_run_growth(r), activations(r, report)
    return f"{grown / size:.2f}x = {act / size:.2f}x activations + {(grown - act) / size:.2f}x the rest"


def build_growth(row, size):
    """Resident-memory growth of the build phase, in units of X's bytes."""
    return (row.rss_bytes.get("build", 0) - row.rss_bytes.get("data", 0)) / size
