"""What tfgraphs can tell you: the page generated from the declared findings, and for every declared kind a real
case where it must not be said."""

import importlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tfgraphs.records.results import load

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(ROOT / "scripts"))

import catalogue  # noqa: E402  (scripts/ is not a package)
from tfgraphs.api.commands import COMMANDS  # noqa: E402
from tfgraphs.findings.evidence import FINDINGS  # noqa: E402


def changed(record, changes):
    """The record with changes applied: each a value, or a function of the record."""
    return replace(record, **{k: v(record) if callable(v) else v for k, v in changes.items()})


def rows(keep=lambda r: True, **changes):
    """An edit of a saved document: its rows that keep() holds, each with changes applied (a value or a function
    of the row)."""
    def edit(report):
        return replace(report, rows=tuple(changed(r, changes) for r in report.rows if keep(r)))
    return edit


def cases(keep=lambda c: True, **changes):
    """An edit of a saved pitfalls document: every lesson's cases that keep() holds, each with changes applied."""
    return rows(cases=lambda r: tuple(changed(c, changes) for c in r.cases if keep(c)))


def extra(**changes):
    """An edit of a saved document's extra: the attribution, the single-threaded run."""
    def edit(report):
        sections = {**report.sections(), **changes}
        # A report that reads its sections into records of their own (read_sections) is rebuilt from them.
        read = getattr(type(report), "read_sections", None)
        return replace(report, **read(sections)) if read else replace(report, extra=sections)
    return edit


def record(**changes):
    """An edit of a saved one-record document (an inspection, a rewrite): values, or functions of the record."""
    def edit(doc):
        return changed(doc, changes)
    return edit


def as_saved(report):
    return report


def _without_first_run_rss(r):
    return {k: v for k, v in (r.rss_bytes or {}).items() if k != "first_run"}


def without(lesson):
    """A pitfalls run that did not hold the lesson."""
    return rows(lambda r: r.lesson != lesson)


def lacking(name):
    """A pitfalls run whose lessons did not run the case called name."""
    return cases(lambda c: c.case != name)


NOT_RUN = "the saved run did not hold this lesson"
# The saved pitfalls run: executor-cache, graph-growth, saved-copies and placeholder-default, without the graphs that
# ran, the session's Extend timed apart, or a callable made from CallableOptions.
PITFALLS = {
    "pitfalls.executor_cache": ("pitfalls", lacking("new fetches repeat"), "the new fetch list's repeats did not run"),
    "pitfalls.graph_growth": ("pitfalls", cases(nodes=None), "the growth loops' nodes were not counted"),
    "pitfalls.saved_copies": ("pitfalls", without("saved-copies"), "saved-copies did not run"),
    "pitfalls.placeholder_default": ("pitfalls", without("placeholder-default"), "placeholder-default did not run"),
    "pitfalls.pruning": ("pitfalls", as_saved, NOT_RUN),
    "pitfalls.folding": ("pitfalls", as_saved, NOT_RUN),
    "pitfalls.feed_alignment": ("pitfalls", as_saved, NOT_RUN),
    "pitfalls.executor_leak": ("pitfalls", as_saved, NOT_RUN),
    "pitfalls.more": ("pitfalls", rows(lambda r: r.lesson == "saved-copies"), "one lesson's headline fits the answer"),
    "pitfalls.no_result": ("pitfalls", as_saved, "every lesson produced a result"),
    "pitfalls._built": ("pitfalls", cases(seconds=None, runs_s=None), "no case was timed"),
    "pitfalls._reordered": ("pitfalls", lacking("reordered fetches"), "the reordered fetches did not run"),
    "pitfalls._new_feeds": ("pitfalls", lacking("new feeds"), "no intermediate tensor was fed"),
    "pitfalls._callable": ("pitfalls", lacking("callable first call"), "the callable was never called"),
    "pitfalls._real_callable": ("pitfalls", as_saved, "the saved run made no callable from CallableOptions"),
    "growth._growth": ("pitfalls", cases(nodes=None), "the growth loops' nodes were not counted"),
    "growth._step_cost": ("pitfalls", cases(step_s=None), "the growth loops' steps were not timed"),
    "growth._extend": ("pitfalls", as_saved, "the saved run did not time the session's Extend apart"),
    "growth._growth_rss": ("pitfalls", cases(rss_bytes=None), "the growth loops' resident memory was not measured"),
    "pitfalls.finalized": ("pitfalls", without("graph-growth"), "graph-growth did not run"),
    "pitfalls._held": ("pitfalls", cases(holds_data=None), "no artifact was searched for X"),
    "pitfalls._frozen": ("pitfalls", rows(lambda r: r.variant != "variable"), "no variable was frozen"),
    "pitfalls._checkpoint": ("pitfalls", rows(lambda r: r.variant != "variable"), "no variable was checkpointed"),
    "pitfalls._meta": ("pitfalls", cases(probe_batch=None), "the .meta was not exported at a second batch"),
    "pitfalls._default_stored": ("pitfalls", without("placeholder-default"), "placeholder-default did not run"),
    "pitfalls._default_ran": ("pitfalls", as_saved, "the saved run did not read the graphs that ran"),
    "execution._folded": ("pitfalls", as_saved, NOT_RUN),
    "execution._what_decides": ("pitfalls", as_saved, NOT_RUN),
    "execution._raised_limit": ("pitfalls", as_saved, NOT_RUN),
    "execution._pruned": ("pitfalls", as_saved, NOT_RUN),
    "execution._alignment": ("pitfalls", as_saved, NOT_RUN),
    "execution._leaked": ("pitfalls", as_saved, NOT_RUN),
    "growth._extend_between": ("pitfalls", as_saved, "the saved run did not time the session's Extend apart"),
    "pitfalls.nothing": ("pitfalls", as_saved, "every lesson produced a result"),
}
ONE_PASS = rows(times_s=lambda r: r.times_s[:1])   # a shapes run cut to its first pass: no length seen twice
# kind -> (saved document, edit of it, why the kind must not be said of it).
MUST_NOT = {
    "compare.no_result": ("compare", as_saved, "every variant produced a result"),
    "compare.unpaired": ("compare", as_saved, "numpy and constant hold X, placeholder is fed on every run"),
    "compare.first_and_later": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.first_run_verdict": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.folded": ("compare", rows(folded=lambda r: False if r.folded else r.folded),
                       "the embedded variants' later runs computed the network"),
    "compare.later_verdict": ("compare", as_saved, "the embedded variants' later runs were folded: the answer says so"),
    "compare.remedy": ("compare-remote", as_saved, "nothing holds X in its graph, so nothing needs a remedy"),
    "compare.nothing": ("compare", as_saved, "every variant produced a result"),
    "compare.embedded_graphs": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.fed_graphs": ("compare", rows(lambda r: r.variant in ("numpy", "constant")), "every variant holds X"),
    "compare.regime": ("compare", as_saved, "the saved run did not read the graph that ran (partition graphs)"),
    "compare.build": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.first_run": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.later_runs": ("compare-folded", as_saved, "every embedded variant's later runs were folded"),
    "compare.peaks": ("compare-folded", as_saved, "every embedded variant's later runs were folded"),
    "compare.loaded_once": ("compare", rows(lambda r: r.variant != "variable"), "no variable loaded X once"),
    "compare.session": ("compare", as_saved, "creating a session took 5% of the shortest first run or more"),
    "compare.ready": ("compare", rows(status="failed", error="boom"), "no variant produced a result"),
    "compare.limits": ("compare-remote", as_saved, "no variant holds X in its graph"),
    "compare.first_run_growth": ("compare", rows(rss_bytes=_without_first_run_rss),
                                 "no worker measured its memory after the first run"),
    "explain.excess": ("explain", extra(attribution=[]), "no variant's first-run excess was attributed"),
    "explain.bare_excess": ("explain", as_saved, "every preset ran, so the excess is split into its parts"),
    "explain.logged": ("explain", as_saved, "the saved first runs' logs name no stage and no Grappler pass"),
    "explain.folded": ("explain-graph", as_saved, "the user's graph that ran still computes its network"),
    "explain.nothing": ("explain", as_saved, "the answer has an excess to tell"),
    "explain.where_it_went": ("explain", as_saved, "the saved logs are not marked at both ends of the first run"),
    "explain.ran_twice": ("explain-trials", as_saved, "the graph that ran did not compute the network twice"),
    "explain.folding": ("explain", as_saved, "the saved run did not read the graph that ran"),
    "explain.optimized_again": ("explain-trials", as_saved, "constant has no initializer run before its first run"),
    "explain.passes": ("explain", as_saved, "the saved run kept no Grappler pass of its log"),
    "explain.attribution": ("explain", extra(attribution=[]), "no variant's first-run excess was attributed"),
    "explain.folding_share": ("explain-trials", as_saved, "three first runs a side cannot tell folding's part apart"),
    "explain.remote_first_run": ("explain", as_saved, "no row ran on a grpc:// target"),
    "explain.remote_later": ("explain", as_saved, "no row ran on a grpc:// target"),
    "explain.bare_against_fed": ("explain-trials", as_saved, "only constant ran: no fed variant to hold it against"),
    "explain.against_default": ("explain", rows(lambda r: r.preset == "default"), "only the default preset ran"),
    "explain.traces": ("explain-graph", as_saved, "a user's graph gets its slowest ops, not the Conv2D facts"),
    "explain.slowest_ops": ("explain", as_saved, "the built-in network ran, not a user's graph"),
    "sweep.fit": ("sweep", extra(fit=[]), "no GraphDef size was fitted against the batch"),
    "sweep.first_runs": ("sweep", rows(lambda r: r.batch == 20), "each variant ran at one batch only"),
    "sweep.no_result": ("sweep", as_saved, "every batch produced a result"),
    "sweep.nothing": ("sweep", as_saved, "every batch produced a result"),
    "sweep.slope": ("sweep", extra(fit=[]), "no GraphDef size was fitted against the batch"),
    "sweep.limit": ("sweep", extra(tf_error=None), "the sweep did not probe the tensor limit"),
    "sweep.against_fed": ("sweep", rows(lambda r: r.variant == "constant"), "no fed variant ran beside constant"),
    "sweep.boundary": ("sweep", as_saved, "constant's later runs were folded at every batch"),
    "sweep.growth": ("sweep", rows(lambda r: r.batch == 20), "each variant ran at one batch only"),
    "inspect.constants": ("inspect", record(const_nodes=None), "the inspection counted no Const node"),
    "inspect.elided": ("inspect", as_saved, "every Const lists all the values its shape holds"),
    "inspect.largest": ("inspect", record(largest_consts=()), "a graph without a Const"),
    "inspect.repeats": ("inspect", record(repeats=()), "no two Consts hold the same tensor"),
    "inspect.unembed_hint": ("inspect", as_saved, "the large Consts take less than half of the graph"),
    "inspect.headroom": ("inspect", record(headroom_bytes=None), "the serialized GraphDef was not measured"),
    "unembed.size": ("unembed", record(after=None), "the rewritten graph was not measured"),
    "unembed.left": ("unembed", as_saved, "no large Const is inside a function body"),
    "unembed.check": ("unembed", record(within=None), "the outputs were not compared"),
    "unembed.times": ("unembed", record(after=lambda u: {**u.after, "first_run_s": None}),
                      "the rewritten graph has no timed first run"),
    "unembed.peak_rss": ("unembed", record(after=lambda u: {**u.after, "peak_rss_bytes": None}),
                         "the rewritten graph's worker measured no peak"),
    "unembed.cost": ("unembed", record(unembed_s=None), "the rewrite was not timed"),
    "unembed.cost_memory": ("unembed", record(unembed_peak_rss_bytes=None), "the rewrite's worker measured no peak"),
    "watch.ending": ("watch", record(runs=None), "without the count of runs, how the script ended is not told"),
    "watch.not_watched": ("watch", as_saved, "the hooks watched the script"),
    "watch.built_only": ("watch", as_saved, "the script ran its session"),
    "watch.no_graph_mode": ("watch", as_saved, "the script ran its session"),
    "watch.found": ("watch", record(status="failed", error="boom"), "the hooks could not watch the script"),
    "watch.traced": ("watch", as_saved, "diagnoses were found: they are the answer"),
    "watch.clean": ("watch", as_saved, "diagnoses were found"),
    "watch.failed": ("watch", as_saved, "the hooks watched the script"),
    "watch.embedded-constant": ("watch", as_saved, "no Const of --min-bytes or more was made"),
    "watch.repeated-feed": ("watch", record(status="failed", error="boom"), "the hooks could not watch the script"),
    "watch.graph-growth": ("watch", record(status="failed", error="boom"), "the hooks could not watch the script"),
    "watch.new-signature": ("watch", as_saved, "every call site used one set of fed and fetched names"),
    "watch.retracing": ("watch", as_saved, "no tf.function was traced"),
    "watch.session-per-pass": ("watch", as_saved, "the script made one session"),
    "watch.first_runs": ("watch", record(status="failed", error="boom"), "the hooks could not watch the script"),
    "shapes.control_line": ("shapes", as_saved, "blocked ran two passes, so no control compares its pass 2 and 3"),
    "shapes.worst": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes.traces": ("shapes", rows(lambda r: r.mode == "graph"), "only graph ran, which does not trace"),
    "shapes.no_pair": ("shapes", as_saved, "the answer has lines to tell"),
    "shapes.nothing": ("shapes", as_saved, "every mode produced a result"),
    "shapes._devices": ("shapes", rows(status="failed", error="boom"), "no mode produced a result"),
    "shapes.one_pass": ("shapes", as_saved, "the modes saw each length twice"),
    "shapes._control": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes._workers": ("shapes", as_saved, "the saved run's workers timed no control (written before it)"),
    "shapes._penalties": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes._tracing": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes._retracing": ("shapes", as_saved, "function paid no new-length cost the judge tells apart"),
    "shapes._remedy": ("shapes", rows(lambda r: r.mode != "blocked"), "blocked did not run"),
    "shapes._switch": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes._first_call": ("shapes", ONE_PASS, "no length was seen twice"),
    "shapes.accuracy": ("shapes", ONE_PASS, "no length was seen twice: the one-pass sentence stands alone"),
    "sweep.peak_growth": ("sweep", as_saved, "batches 20 to 80 span less than 8 MiB of data: no slope is given"),
    **PITFALLS,
}


def declared():
    """{kind: command} of every finding a command registers."""
    return {f.kind: command for command in catalogue.commands() for f in FINDINGS[command]}


def findings_module(command):
    """The module saying the command's findings (its answer_and_findings)."""
    return importlib.import_module(FINDINGS[command][0].say.__module__)


def test_the_committed_page_is_what_the_declarations_write():
    assert (ROOT / "docs" / "findings.md").read_text() == catalogue.catalogue(), "run python scripts/catalogue.py"


def test_every_command_has_findings_and_says_them():
    assert catalogue.commands() == list(COMMANDS)
    for command in COMMANDS:
        assert callable(findings_module(command).answer_and_findings), command


def test_every_declared_kind_has_a_case_where_it_must_not_be_said():
    kinds = declared()
    assert kinds, "some command declares its findings"
    assert sorted(set(kinds) - set(MUST_NOT)) == [], "each declared kind needs a must-not case in MUST_NOT"
    assert sorted(set(MUST_NOT) - set(kinds)) == [], "a must-not case names a kind no command declares"


@pytest.mark.parametrize("kind", sorted(MUST_NOT))
def test_a_must_not_case_does_not_say_its_kind(kind):
    name, edit, why = MUST_NOT[kind]
    report = edit(load(json.loads((FIXTURES / f"{name}.json").read_text())))
    module = findings_module(declared()[kind])
    headline, findings = module.answer_and_findings(report)
    assert kind not in {s.kind for s in (*headline, *findings)}, why


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.json")))
def test_every_declared_finding_goes_to_the_json_with_its_kind_evidence_and_verdicts(name):
    from tfgraphs.api.commands import render
    from tfgraphs.findings.remote import has_remote
    from tfgraphs.render.page import stated

    report = load(json.loads((FIXTURES / f"{name}.json").read_text()))
    module = findings_module(report.command)
    kept = stated(render(report, width=None, verbose=True))
    declared = {f.kind: f.needs for f in FINDINGS[report.command]}
    sentences = [s for part in module.answer_and_findings(report) for s in part]
    if report.command == "compare" and has_remote(report):
        # The remote rows' answer opens that page; below it, the in-process rows' findings.
        sentences = module.answer_and_findings(replace(report, rows=tuple(r for r in report.rows
                                                                          if not r.remote and r.returns != "sum")))[1]
    for said in sentences:
        entry = next((e for e in kept if e["kind"] == said.kind and e["text"] == said), None)
        assert entry is not None, (said.kind, str(said))
        assert entry["evidence"] == list(declared[said.kind])
        assert len(entry["verdicts"]) == len(said.verdicts)
