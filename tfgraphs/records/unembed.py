"""What unembed did to one graph: what moved, what stayed, and the graph before and after, as numbers."""

from dataclasses import MISSING, dataclass

from tfgraphs.records.document import OneRecord
from tfgraphs.records.possible import GRAPH_BYTES, Range, ranged

# The keys of `before` and `after` and their ranges: the sizes the rewrite reads, then what a --check run measured
# (None without); either graph was read from, or written as, one GraphDef protobuf, the other numbers are sizes and
# times.
SIDE = {"graph_bytes": Range(**GRAPH_BYTES), **{k: Range() for k in ("const_bytes", "largest_const_bytes", "session_s",
                                                                     "load_s", "first_run_s", "runs_s",
                                                                     "peak_rss_bytes")}}
# The numbers of a moved or left Const: its tensor's bytes and dimensions.
CONST = {"bytes": Range(), "shape": Range()}


def side(sizes, measured=None):
    """One side of the before/after table from the rewrite's sizes and, with --check, a worker's Measurement."""
    m = measured
    ok = m is not None and m.status == "ok"
    load = None if not ok else m.build_s if m.build_s is not None else m.init_s
    return {"graph_bytes": sizes.get("graph_bytes"), "const_bytes": sizes.get("const_bytes"),
            "largest_const_bytes": sizes.get("largest_const_bytes"),
            "session_s": m.session_s if ok else None, "load_s": load,
            "first_run_s": m.first_run_s if ok else None, "runs_s": list(m.runs_s) if ok else [],
            "peak_rss_bytes": m.peak_rss_bytes if ok else None}


@dataclass(frozen=True)
class Unembedding(OneRecord):
    """One rewrite: the graph before and after, the Consts moved and left, and the check of its outputs."""

    path: str | None            # None in documents that did not record them
    out: str | None
    min_bytes: int | None = ranged(least=1, default=MISSING)   # --min-bytes reads a size of at least 1 byte
    before: dict = ranged(keys=SIDE, factory=dict)
    after: dict = ranged(keys=SIDE, factory=dict)
    moved: tuple = ranged(keys=CONST, default=())   # ({"name", "bytes", "dtype", "shape"}, ...)
    left: tuple = ranged(keys=CONST, default=())    # ({"name", "bytes", "dtype", "shape", "function", "reason"}, ...)
    checked: bool = False
    max_abs_err: float | None = ranged(unbounded=True)   # inf: an output of another shape; NaN: holding NaN
    tolerance: float | None = ranged(unbounded=True)     # of the output whose difference is the largest (scaled by
                                                         # its largest value, which may be inf)
    within: bool | None = None       # every output within its own dtype's tolerance
    unembed_s: float | None = ranged()
    unembed_peak_rss_bytes: int | None = ranged()
    unembed_phases: dict = ranged(factory=dict)   # read_s, rewrite_s, save_s (and assign_s in older runs)
    tf_rss_bytes: int | None = ranged()           # the rewriting worker's RSS once TensorFlow was imported
    errors: tuple = ()           # ("what: TensorFlow's message", ...) of every worker that failed

    command = "unembed"

    @property
    def moved_bytes(self):
        return sum(m["bytes"] for m in self.moved)

    @property
    def equal(self):
        """True/False whether the outputs matched within tolerance; None when they were not compared."""
        return self.within

    @property
    def ok(self):
        return not self.errors and self.equal is not False

    def saved(self):
        """before, after, moved and max_abs_err, as the --json document was first specified, then the rest."""
        held = super().saved()
        return {**{k: held[k] for k in CORE}, **held}

    @classmethod
    def required(cls):
        """The keys unembed's first documents held: only those are required."""
        return CORE

    @classmethod
    def read(cls, d):
        """The fields a saved document holds; one holding only the keys unembed first wrote leaves the rest unknown."""
        given = super().read(d)
        # Only a --check run measures the graphs, so measured runs say it ran when the document does not.
        ran = bool(given["after"].get("runs_s"))
        return {"path": None, "out": None, "min_bytes": None, "checked": ran, **given}


# The keys the --json document was first specified with; every other key was added to re-render it.
CORE = ("before", "after", "moved", "max_abs_err")
