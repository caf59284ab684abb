"""Split the first run's excess over the later runs into Grappler, classic constant folding and the rest."""

import math
from dataclasses import asdict, dataclass, fields

from tfgraphs.records.judge import FLOOR, MARGIN, judge
from tfgraphs.records.schema import SECONDS, check_record, check_type, known, ranged
from tfgraphs.spec.network import VARIANTS

PARTS = ("grappler_s", "folding_s", "rest_s", "interaction_s")
LABELS = {"grappler_s": "Grappler", "folding_s": "constant folding", "rest_s": "the rest",
          "interaction_s": "interaction"}
NEEDED = ("default", "no-grappler", "no-folding", "bare")
# The two presets each part is a difference of; the rest and the interaction are no single difference.
FROM_PRESETS = {"grappler_s": ("default", "no-grappler"), "folding_s": ("default", "no-folding")}


@dataclass(frozen=True)
class ExplainedGraph:
    """A user's graph as explain measured it: how it was read, fed, fetched and run, and what it turned out to be."""

    path: str
    runs: int
    trials: int
    seed: int
    presets: tuple
    tag: str | None
    signature: str | None
    dims: dict                # {input name: [d1, d2, ...]}: the full shapes given for inputs with unknown dimensions
    fetches: tuple
    int_high: int
    graph: str                # the file read
    name: str
    format: str
    inputs: tuple             # per input: {"key", "tensor", "dtype", "shape"}
    outputs: tuple            # per output: {"key", "tensor"}

    def to_dict(self):
        return {**asdict(self), **{k: list(getattr(self, k)) for k in ("presets", "fetches", "inputs", "outputs")}}

    @classmethod
    def from_dict(cls, d):
        held = {f.name: d.get(f.name) for f in fields(cls)}
        return cls(**{**held, **{k: tuple(held[k] or ()) for k in ("presets", "fetches", "inputs", "outputs")}})


@dataclass(frozen=True)
class Attribution:
    """One saved attribution: a variant's first-run excess and its parts (None unless all four presets ran); a part
    may be negative (see attribute)."""

    variant: str
    excess_s: float | None = ranged(-math.inf)
    grappler_s: float | None = ranged(-math.inf)
    folding_s: float | None = ranged(-math.inf)
    rest_s: float | None = ranged(-math.inf)
    interaction_s: float | None = ranged(-math.inf)


@dataclass(frozen=True)
class SingleThread:
    """The saved single-threaded worker: its runs, or why there are none."""

    variant: str
    intra_op_threads: int = ranged(1, default=1)
    inter_op_threads: int = ranged(1, default=1)
    status: str = "ok"
    error: str | None = None
    first_run_s: float | None = ranged(**SECONDS)
    runs_s: tuple = ranged(**SECONDS, default=())
    max_abs_err: float | None = ranged(unbounded=True)


def check_sections(d):
    """ValueError naming the first field of explain's saved attribution and single-threaded run a run cannot make."""
    attribution = d.get("attribution") or ()
    check_type("attribution", attribution, tuple)
    for i, saved in enumerate(attribution):
        check_record(Attribution(**known(Attribution, saved)), f"attribution[{i}].")
    if d.get("single_thread") is not None:
        check_record(SingleThread(**known(SingleThread, d["single_thread"])), "single_thread.")


def attribute(by_preset):
    """Attribution from {preset: first-run excess in s}; parts are None unless all four presets were measured.

    grappler = E(default) - E(no-grappler); folding = E(default) - E(no-folding); rest = E(bare).
    interaction = E(default) - grappler - folding - rest = (E(default) - E(bare)) - grappler - folding: what
    switching both off saves beyond the sum of switching each off alone. Negative when both off saves less than
    that sum: the parts overlap (Grappler's own constant folding is counted in both presets, for one).
    """
    e = by_preset
    out = {"excess_s": e.get("default")}
    if any(e.get(p) is None for p in NEEDED):
        return {**out, **dict.fromkeys(PARTS)}
    out["grappler_s"] = e["default"] - e["no-grappler"]
    out["folding_s"] = e["default"] - e["no-folding"]
    out["rest_s"] = e["bare"]
    out["interaction_s"] = e["default"] - out["grappler_s"] - out["folding_s"] - out["rest_s"]
    return out


def placed(rows, variant, remote=False):
    """The rows of one variant in one place: in-process, or on a grpc:// target (a fresh server per worker)."""
    return [r for r in rows if r.variant == variant and r.remote == remote]


def attributions(rows):
    """One attribution per variant that embeds X in its graph and per place it ran, in-process then remote."""
    out, far = [], any(r.remote for r in rows)
    for variant, remote in dict.fromkeys((r.variant, r.remote) for r in rows):
        if not VARIANTS[variant].embeds_data:
            continue
        by_preset = {r.preset: r.first_run_excess_s for r in placed(rows, variant, remote)}
        # "remote" only with remote rows: an in-process run's attribution is written as it was before them.
        out.append({"variant": variant, **({"remote": remote} if far else {}), **attribute(by_preset)})
    return out


def is_remote(attribution, rows):
    """Whether an attribution is of remote rows (one without the key: of its variant's rows, all in one place)."""
    # No key: a run without a target, or one from before explain measured in-process rows beside the remote ones.
    if "remote" in attribution:
        return attribution["remote"]
    return any(r.remote for r in rows if r.variant == attribution["variant"])


def excesses_judged(a, b, whole):
    """The judge on two rows' first-run excesses, one per fresh worker, as a shift in seconds (an excess may be 0 or
    negative): 'no difference' means within a quarter of whole, the excess the difference is a part of."""
    # A quarter, the judge's own margin for a ratio (x0.8 to x1.25), read as a share of the excess being split.
    margin = abs(whole) * (MARGIN - 1) if whole else None
    # Under 2% of the excess is under the run's resolution, as for a ratio (FLOOR): never "differs".
    floor = abs(whole) * (FLOOR - 1) if whole else None
    return judge(a.first_run_excesses_s, b.first_run_excesses_s, scale="shift", margin=margin, floor=floor)


def part_first_runs(rows, variant, part, whole, remote=False):
    """The judge's verdict on the two presets a part is the difference of (their first-run excesses, one per fresh
    worker); None for the rest and the interaction, or when a preset has no ok row."""
    if part not in FROM_PRESETS:
        return None
    by = {r.preset: r for r in placed(rows, variant, remote) if r.ok}
    a, b = (by.get(p) for p in FROM_PRESETS[part])
    return None if a is None or b is None else excesses_judged(a, b, whole)


def where(variant, remote):
    """How a row group is named in tables and sentences: the variant, and `remote` when it ran on a target."""
    return variant + (" remote" if remote else "")


def share(part, total):
    """part as a % of total, or None."""
    return None if part is None or not total else 100.0 * part / total
