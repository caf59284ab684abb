"""graph_bytes = a * batch + b: a least-squares line per variant over the batches a sweep measured."""

import math
from dataclasses import MISSING, asdict, dataclass, fields

import numpy as np

from tfgraphs.records.schema import GRAPH_BYTES, Range, ranged
from tfgraphs.spec import network


@dataclass(frozen=True)
class Fit:
    """graph_bytes = bytes_per_example * batch + overhead_bytes, over one variant's measured batches."""

    variant: str
    # Fitted to GraphDefs under 2 GiB at distinct batches: the slope cannot pass it, and no variant's graph shrinks.
    bytes_per_example: int = ranged(**GRAPH_BYTES, default=MISSING)
    overhead_bytes: int = ranged(-math.inf, **GRAPH_BYTES, default=MISSING)   # the sizes less the slope's
    max_batch: int | None = ranged(default=MISSING)   # largest batch whose GraphDef stays under 2 GiB; None when it
                                                      # does not grow
    max_residual_bytes: int = ranged(default=MISSING)
    points: int = ranged(2, why=" (a line is fitted to two batches or more)", default=MISSING)
    folded: bool | None = None   # older documents: the regime their fit kept to (folding never changes the GraphDef)

    def to_dict(self):
        d = asdict(self)
        return d if self.folded is not None else {k: v for k, v in d.items() if k != "folded"}

    @classmethod
    def from_dict(cls, d):
        return cls(**{f.name: d.get(f.name) for f in fields(cls)})


# sweep's limit probe (jobs.network.probe_limit): the batch past the fitted limit, X's bytes there, and the memory.
PROBE = {"batch": Range(1), "data_bytes": Range(), "predicted_max_batch": Range(), "rss_before_bytes": Range(),
         "rss_after_bytes": Range()}


@dataclass(frozen=True)
class Extra:
    """The sections a sweep document holds beside its rows, read to check their numbers: the fits and the probe."""

    fit: tuple = ()
    tf_error: dict | None = ranged(keys=PROBE)

    @classmethod
    def from_dict(cls, extra):
        fit = extra.get("fit")
        fit = [] if fit is None else fit   # a sweep that fitted no variant saves an empty list
        if not isinstance(fit, list) or not all(isinstance(f, dict) for f in fit):
            raise ValueError(f"fit is {str(fit)[:40]!r}, not a list of objects")
        return cls(tuple(Fit.from_dict(f) for f in fit), extra.get("tf_error"))


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
    return network.largest_batch(a, b) if a > 0 else None


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


def fits(results):
    """The fits a sweep's results saved."""
    return list(results.fits)
