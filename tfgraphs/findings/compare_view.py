"""compare's one view of a report's rows, which every finding reads, and the measures and verdicts they share."""

from dataclasses import dataclass, replace

from tfgraphs.findings.evidence import has
from tfgraphs.findings.memory import data_bytes
from tfgraphs.records.judge import CANNOT_TELL, FEWEST, judge
from tfgraphs.spec import limits, network
from tfgraphs.spec.variants import VARIANTS
from tfgraphs.units import join

EMBEDDED_SHARE = 0.9   # a graph holding at least this share of X's bytes in Const tensors holds X


@dataclass(frozen=True)
class View:
    """The ok rows, those holding X in their graph and those fed it, the fed-per-run base, and X's bytes."""

    report: object
    ok: tuple
    embedded: tuple
    fed: tuple
    base: object      # the first variant fed X on every run, or None
    against: object   # what embedded rows are measured against: base, or else the first fed row
    size: int
    whole: object = None   # the view before having() kept the rows with some evidence

    @classmethod
    def of(cls, report):
        """The report's view, partitioned once."""
        size = data_bytes(report)
        ok = tuple(r for r in report.rows if r.ok)
        embedded = tuple(r for r in ok if holds_data(r, report, size))
        fed = tuple(r for r in ok if not holds_data(r, report, size))
        base = next((r for r in fed if VARIANTS[r.variant].fed_per_run), None)
        # The answer asks for a variant fed per run; the findings compare with the first fed row when there is none
        # (a variable): two fallbacks kept, as the pages have always printed them.
        return cls(report, ok, embedded, fed, base, base or (fed[0] if fed else None), size)

    def having(self, names):
        """The view over the rows that hold every field in names; base and against are None when they lack one."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, ok=kept(self.ok), embedded=kept(self.embedded), fed=kept(self.fed),
                       base=self.base if self.base is not None and has(self.base, names) else None,
                       against=self.against if self.against is not None and has(self.against, names) else None,
                       report=replace(self.report, rows=kept(self.report.rows)), whole=self.whole or self)

    @property
    def paired(self):
        """True when an embedded row and a fed-per-run base are there to set side by side."""
        return bool(self.embedded) and self.base is not None


def holds_data(row, report, size=None):
    """True when the row's Const tensors hold (nearly) all of X."""
    return row.const_bytes is not None and row.const_bytes >= EMBEDDED_SHARE * (size or data_bytes(report))


def max_batch(row, report):
    """Largest batch whose GraphDef serializes under 2 GiB (X's bytes plus the measured rest); None if X is not in
    it."""
    if not holds_data(row, report):
        return None
    per_example = copies_in_graph(row, data_bytes(report)) * network.example_bytes(report.config.dtype)
    return limits.largest_batch(per_example, overhead_bytes(row, report))


def max_tensor_batch(row, report):
    """Largest batch whose X, as one tensor, TensorFlow accepts at creation; None if X is not in the graph."""
    return limits.max_tensor_batch(report.config.dtype) if holds_data(row, report) else None


def copies_in_graph(row, size):
    """How many whole copies of X (of `size` bytes) the row's Const tensors hold (measured, not assumed)."""
    return max(1, int(row.const_bytes // size))


def overhead_bytes(row, report):
    """GraphDef bytes besides the copies of X: the network's nodes, W and protobuf framing."""
    return row.graph_bytes - copies_in_graph(row, data_bytes(report)) * data_bytes(report)


def per_trial(row, name):
    """The field's value in each ok trial: one sample per fresh worker."""
    return tuple(v for v in (getattr(t, name) for t in row.trials if t.status == "ok") if v is not None)


def first_run_verdict(row, base):
    """row's first runs against the base's, one per fresh worker each: independent samples. A folded row's later
    runs compute nothing, so first runs are compared, not their excess over the later runs."""
    return judge(row.first_runs_s, base.first_runs_s)


def later_verdict(row, base):
    """row's later runs against the base's, one median a worker: the variants ran in different workers, and runs of
    one worker are not independent samples of a variant."""
    return judge(row.later_medians_s, base.later_medians_s)


def too_few(verdicts):
    """True when a side of some verdict has fewer samples than its test needs to say "differs"."""
    return any(min(v.n_a, v.n_b) < FEWEST[v.method] for v in verdicts)


def verdict_text(v, unit=None):
    """The verdict as printed: below the fewest samples its test needs there is no interval, so the outcome alone
    (which names n); else the outcome with effect, interval, n and p."""
    return v.phrase(unit) if too_few([v]) else v.says(unit)


def by_outcome(rows, verdict_of):
    """{"larger" | "smaller" | "same" | "cannot tell": [(row, verdict)]}, in the rows' order, empty groups left out."""
    groups = {}
    for r in rows:
        v = verdict_of(r)
        kind = "larger" if v.larger else "smaller" if v.smaller else "same" if v.same else "cannot tell"
        groups.setdefault(kind, []).append((r, v))
    return groups


def told(pairs, value):
    """'constant 3.00 s, differs (x20.0, ...)', or one outcome shared by several rows said once: 'no difference
    beyond 25% for each: numpy 27.8 ms (x1.02, ...); constant 27.3 ms (...)'. Below the fewest samples the test
    needs there is no interval to give: 'numpy 27.8 ms and constant 27.3 ms: cannot tell with n=1 and 1 (...)'."""
    phrases = {v.phrase() for _, v in pairs}
    if len(phrases) == 1 and too_few([v for _, v in pairs]):
        return f"{join(f'{r.variant} {value(r)}' for r, _ in pairs)}: {phrases.pop()}"
    if len(pairs) == 1 or len(phrases) > 1:
        return "; ".join(f"{r.variant} {value(r)}, {verdict_text(v)}" for r, v in pairs)
    # As says() puts it: a "cannot tell" phrase names n already.
    return f"{phrases.pop()} for each: " + "; ".join(
        f"{r.variant} {value(r)} ({v.detail(samples=v.outcome != CANNOT_TELL)})" for r, v in pairs)
