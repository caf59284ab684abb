"""graph_bytes = a * batch + b: a least-squares line per variant over the batches a sweep measured."""

from dataclasses import asdict, dataclass, fields

import numpy as np

from tfgraphs.spec import limits


@dataclass(frozen=True)
class Fit:
    """graph_bytes = bytes_per_example * batch + overhead_bytes, over one variant's measured batches."""

    variant: str
    bytes_per_example: int
    overhead_bytes: int
    max_batch: int | None        # largest batch whose GraphDef stays under 2 GiB; None when it does not grow
    max_residual_bytes: int
    points: int
    folded: bool | None = None   # older documents: the regime their fit kept to (folding never changes the GraphDef)

    def to_dict(self):
        d = asdict(self)
        return d if self.folded is not None else {k: v for k, v in d.items() if k != "folded"}

    @classmethod
    def from_dict(cls, d):
        return cls(**{f.name: d.get(f.name) for f in fields(cls)})


def fit_line(batches, sizes):
    """(a, b, largest residual) of sizes = a * batches + b: least squares, a rounded to whole bytes, b refitted."""
    slope, _ = np.polyfit(np.asarray(batches, dtype=float), np.asarray(sizes, dtype=float), 1)
    a = int(round(slope))
    # What a whole-byte slope leaves over is protobuf framing: each length prefix gains a byte whenever the
    # data crosses a power of 128, so b is the mean intercept and the residual says how far from a line it is.
    b = int(round(float(np.mean([s - a * n for n, s in zip(batches, sizes)]))))
    return a, b, max(abs(s - a * n - b) for n, s in zip(batches, sizes))


def largest_batch(a, b):
    """Largest N with a * N + b below 2 GiB, or None when the graph does not grow with N."""
    return limits.largest_batch(a, b) if a > 0 else None


def one_regime(rows):
    """The rows in the regime of the largest batch: folded or not, a time's growth never spans the change."""
    if not rows:
        return rows
    regime = max(rows, key=lambda r: r.batch).folded
    return [r for r in rows if r.folded == regime]


def fit_all(rows, variants):
    """A Fit for every variant with graph sizes at two or more distinct batches. Every batch counts: folding rewrites
    the session's partition graphs, never the GraphDef the client built."""
    out = []
    for v in variants:
        points = {r.batch: r.graph_bytes for r in rows if r.variant == v and r.ok and r.graph_bytes is not None}
        if len(points) < 2:
            continue
        a, b, residual = fit_line(list(points), list(points.values()))
        out.append(Fit(v, a, b, largest_batch(a, b), residual, len(points)))
    return out


def fits(report):
    """The fits a sweep report saved."""
    return [Fit.from_dict(d) for d in report.extra.get("fit") or ()]
