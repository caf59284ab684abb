"""What an explain report tells a reader, declared as data: TensorFlow's log of the first run, the graph that ran,
the traces and the presets judged against each other; the headline ones open the page. All are said over one view
of the report's rows."""

from dataclasses import dataclass, replace

from tfgraphs.findings import explain_said as said
from tfgraphs.findings import inside, stages
from tfgraphs.findings.evidence import Finding, has, said_by
from tfgraphs.findings.explain_said import more_trials, share_text
from tfgraphs.records.explain import is_remote, placed
from tfgraphs.spec.variants import VARIANTS

__all__ = ["DECLARED", "answer", "more_trials", "sentences", "share_text", "told"]
SHOWN = 5   # answer lines at most; the findings say the rest


@dataclass(frozen=True)
class View:
    """The rows, those of the built-in network, the in-process default-config rows, and the report's other sections."""

    report: object
    rows: tuple
    seed_rows: tuple   # the Conv2D facts are about the built-in network; a user's graph gets its slowest ops instead
    defaults: tuple
    whole: object = None

    @classmethod
    def of(cls, report):
        rows = tuple(report.rows)
        return cls(report, rows, tuple(r for r in rows if r.variant in VARIANTS),
                   tuple(r for r in rows if r.preset == "default" and not r.remote))

    def having(self, names):
        """The view over the rows that hold every field in names."""
        def kept(rows):
            return tuple(r for r in rows if has(r, names))
        return replace(self, rows=kept(self.rows), seed_rows=kept(self.seed_rows), defaults=kept(self.defaults),
                       whole=self.whole or self)

    @property
    def attributions(self):
        return list(self.report.attribution)


def _attributed(v, a):
    """True when the attribution has an excess and rows in its place."""
    return a["excess_s"] is not None and bool(placed(v.rows, a["variant"], is_remote(a, v.rows)))


def _bare_after(v, a):
    """True when the answer adds the bare preset's line after an excess it could not split."""
    return _attributed(v, a) and a["grappler_s"] is None and said.bare_presets(a, v.rows) is not None


def _folding_shown(v, a):
    """True when the judge finds switching folding off changed the excess, and one single-threaded run is there."""
    single = v.report.single_thread
    if not single or single.get("status") != "ok" or a.get("folding_s") is None:
        return False
    return bool(said.folding_against_single_thread(a, list(v.rows), single))


def _default_with(v, rows, test):
    return any(r.preset == "default" and test(r) for r in rows)


def _first_two(v):
    return v.attributions[:2]


def _every(v):
    return v.attributions


AGAINST = ("first_runs_s", "runs_s")   # the evidence every judged first-run excess rests on
LOG = ("first_run_log", "logged_first_run_s")
ANSWER = (
    Finding("explain.excess", AGAINST, _attributed, lambda v, a: said.excess(a, list(v.rows)), True,
            "{variant}: the first run paid {time} more than later runs; the largest part told apart: {part} {time} "
            "({share}; {verdict}) / no part of it told apart: {verdicts}.",
            "the variant has no first-run excess (no later runs) or no rows", per=_first_two),
    Finding("explain.bare_excess", AGAINST, _bare_after, lambda v, a: said.bare_excess(a, list(v.rows)), True,
            "{variant}, every optimizer off (bare): the excess was {time} against {time} by default, {verdict}.",
            "the run has the presets that split the excess, or lacks the default or the bare one", per=_first_two),
    Finding("explain.logged", LOG, lambda v: said.logged_parts(list(v.defaults)),
            lambda v: said.logged(list(v.defaults)), True,
            "Where each logged first run went, by TensorFlow's own log: {variant} {time}: {stage} {share}, ...",
            "TensorFlow's log of the default-config first runs names no stage and no Grappler pass"),
    Finding("explain.folded", ("partition_computes",),
            lambda v: any(not r.partition_computes["Conv2D"] for r in v.defaults),
            lambda v: said.folded(list(v.defaults)), True,
            "Folded by default: the graph that ran holds no Conv2D in {variants} (partition graphs).",
            "every default-config graph that ran still holds Conv2D, or none was read"),
)
NOTHING = Finding("explain.nothing", (), lambda v: not said_by(ANSWER, v.whole or v),
                  lambda v: ["No variant produced a first run to explain."], True,
                  "No variant produced a first run to explain.", "any other answer line is said")
FINDINGS = (
    Finding("explain.where_it_went", LOG, lambda v: _default_with(v, v.rows, stages.logged_spans),
            lambda v: stages.where_it_went(list(v.rows)), False,
            "{variant} [default]: TensorFlow's log lines span {share} of the logged first run's {time}; its longest "
            "stages: {stage} {time} ({share}), ...", "no default-config first run's log is marked at both ends"),
    Finding("explain.ran_twice", ("first_run_log", "partition_computes"),
            lambda v: _default_with(v, v.seed_rows, lambda r: r.partition_computes["Conv2D"]),
            lambda v: stages.network_ran_twice(list(v.seed_rows)), False,
            "{variant} [default]: the network ran twice in its first run. The executor logged {ops} in the classic "
            "folder's run of the constant graph ...",
            "the executor did not log Conv2D in the classic folder's run, or the graph that ran holds no Conv2D"),
    Finding("explain.folding", ("partition_computes", "replaced_by_const"),
            lambda v: _default_with(v, v.seed_rows, bool), lambda v: inside.folding_evidence(list(v.seed_rows)),
            False, "{variant} [default]: folded. The graph that ran holds no Conv2D ... / not folded. The graph that "
            "ran still holds Conv2D, ...", "no default-config graph that ran was read (partition graphs)"),
    Finding("explain.optimized_again", ("first_run_log", "init_s"),
            lambda v: _default_with(v, v.seed_rows, lambda r: r.init_s is not None),
            lambda v: stages.optimized_again(list(v.seed_rows)), False,
            "{variant} [default]: its first run came after the initializer's run in the same session, and "
            "TensorFlow logged {stages} again: ...", "no variable's first run logged BuildGraph after its init"),
    Finding("explain.passes", ("first_run_inside", "logged_first_run_s"),
            lambda v: _default_with(v, v.rows, lambda r: r.first_run_inside),
            lambda v: inside.first_run_inside(list(v.rows)), False,
            "{variant} [default]: TensorFlow logged {n} Grappler passes taking {time} of the logged first run's "
            "{time} ({share}); the largest: {passes}.", "TensorFlow's log holds no line this tool understands"),
    Finding("explain.attribution", ("first_runs_s",), _attributed, lambda v, a: said.attribution(a, list(v.rows)),
            False, "{variant}: of the {time} the first run paid over the later runs (default config), {part} {time} "
            "({share}), ...; the largest part whose presets' first-run excesses differ is {part} ({verdict}).",
            "the variant has no first-run excess or no rows", per=_every),
    Finding("explain.folding_share", AGAINST, _folding_shown,
            lambda v, a: said.folding_against_single_thread(a, list(v.rows), v.report.single_thread),
            False, "{variant}: switching constant folding off changed the first run by {time} ({verdict}); one "
            "single-threaded evaluation of the network took {time} ...",
            "the judge does not find that switching folding off changed the first run's excess", per=_every),
    Finding("explain.remote_first_run", AGAINST, lambda v: any(r.remote for r in v.rows),
            lambda v: said.remote_first_runs(list(v.rows)), False,
            "{row}: the first run paid {time} beyond the later runs against {time} in-process: {verdict}; remotely "
            "the first run also sends the {bytes}-byte GraphDef to the server, where it was longer.",
            "no row ran on a grpc:// target"),
    Finding("explain.remote_later", ("runs_s",), lambda v: any(r.remote for r in v.rows),
            lambda v: said.remote_later_runs(list(v.rows)), False,
            "{row}: later runs took {time} median against {time} in-process: {verdict}.",
            "no row ran on a grpc:// target"),
    Finding("explain.bare_against_fed", AGAINST, lambda v: any(r.preset == "bare" for r in v.seed_rows),
            lambda v: said.bare_against_fed(list(v.rows)), False,
            "With both optimizers off, {variant}'s first-run excess ({time}) against {fed variant}'s ({time}): "
            "{verdict}.", "the run has no bare preset of a fed and an embedded variant"),
    Finding("explain.against_default", AGAINST, lambda v: any(r.preset != "default" for r in v.rows),
            lambda v: said.against_default(list(v.rows)), False,
            "{variant}: the first run's excess over the later runs, against {time} by default: {time} with "
            "{preset}, {verdict}; ...", "the run has only the default preset"),
    Finding("explain.traces", ("top_ops",), lambda v: v.seed_rows, lambda v: inside.trace_facts(list(v.seed_rows)),
            False, "Conv2D ran / No kernel computing Conv2D ran in the traced later run of {rows} (step stats).",
            "no run of the built-in network was traced"),
    Finding("explain.slowest_ops", ("top_ops",), lambda v: any(r.variant not in VARIANTS for r in v.rows),
            lambda v: said.slowest_ops(list(v.rows)), False,
            "{graph}: the traced first run spent longest in {op} ({type}), {ms} ms; {ms} ms in the second.",
            "the run measured the built-in network, not a user's graph"),
)
DECLARED = ANSWER + (NOTHING,) + FINDINGS


def told(report):
    """(the answer, the findings): every declaration said over one view of the report, split by headline."""
    view = View.of(report)
    # The answer keeps its first SHOWN lines; the excess of a third variant is among the findings.
    return (said_by(tuple(f for f in DECLARED if f.headline), view)[:SHOWN],
            said_by(tuple(f for f in DECLARED if not f.headline), view))


def answer(report):
    """At most five lines: each variant's first-run excess and its largest judged part, then TensorFlow's own log."""
    return told(report)[0]


def sentences(report):
    """What the ablation, TensorFlow's log and the traces show, from this report's evidence only."""
    return told(report)[1]
