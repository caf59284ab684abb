"""What unembed did to one graph: what moved, what stayed, and the graph before and after, as numbers."""

from dataclasses import dataclass, field

# The keys of `before` and `after`: the sizes the rewrite reads, then what a --check run measured (None without).
SIDE_KEYS = ("graph_bytes", "const_bytes", "largest_const_bytes", "session_s", "load_s", "first_run_s", "runs_s",
             "peak_rss_bytes")


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
class Unembedding:
    """One rewrite: the graph before and after, the Consts moved and left, and the check of its outputs."""

    path: str
    out: str
    min_bytes: int
    before: dict = field(default_factory=dict)
    after: dict = field(default_factory=dict)
    moved: tuple = ()            # ({"name", "bytes", "dtype", "shape"}, ...)
    left: tuple = ()             # ({"name", "bytes", "dtype", "shape", "function", "reason"}, ...)
    checked: bool = False
    max_abs_err: float | None = None
    tolerance: float | None = None   # of the output whose difference is the largest
    within: bool | None = None       # every output within its own dtype's tolerance
    unembed_s: float | None = None
    unembed_peak_rss_bytes: int | None = None
    unembed_phases: dict = field(default_factory=dict)   # read_s, rewrite_s, assign_s, save_s
    tf_rss_bytes: int | None = None                       # the rewriting worker's RSS once TensorFlow was imported
    errors: tuple = ()           # ("what: TensorFlow's message", ...) of every worker that failed
    tf_version: str | None = None
    machine: dict = field(default_factory=dict)

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

    def to_dict(self):
        """The --json document: exactly command, before, after, moved and max_abs_err."""
        return {"command": self.command, "before": dict(self.before), "after": dict(self.after),
                "moved": [dict(m) for m in self.moved], "max_abs_err": self.max_abs_err}
