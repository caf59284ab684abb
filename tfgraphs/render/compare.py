"""Render a compare report: sizes, phase times, the "why" ratios, memory per phase, and what they show."""

from dataclasses import replace

from tfgraphs.findings.compare import told, why_rows
from tfgraphs.findings.memory import PHASES, growth_rows
from tfgraphs.findings.remote import answer as remote_answer
from tfgraphs.findings.remote import has_remote
from tfgraphs.findings.remote import sentences as remote_sentences
from tfgraphs.records.stats import Summary
from tfgraphs.render.page import WIDTH, Page, Table, failures, machine_line, page, runs_text, time_unit
from tfgraphs.render.remote import remote_table
from tfgraphs.units import fmt_bytes, fmt_int, sig3

TIME_FIELDS = (("build", "build_s"), ("serialize", "serialize_s"), ("session", "session_s"), ("init", "init_s"),
               ("first run", "first_run_s"))
SIZES_LEGEND = ("graph bytes = serialized GraphDef; const bytes = bytes held in Const tensors; peak RSS = the "
                "worker's peak resident memory; max abs err = largest difference from the NumPy reference.")


def header(report):
    """What ran, then where."""
    c = report.config
    return (f"{report.command}: batch {c.batch:,}, {c.dtype}, {runs_text(c)}, seed {c.seed}"
            + (f", --target {c.target}" if c.target else "") + f"\n{machine_line(report)}")


def _sizes(r):
    return [fmt_int(r.graph_bytes), fmt_int(r.nodes), fmt_int(r.const_bytes), fmt_bytes(r.peak_rss_bytes),
            f"{r.max_abs_err:.1e}"]


def _times(r, scale):
    s = Summary.of(r.runs_s)
    cells = [getattr(r, name) for _, name in TIME_FIELDS] + [s.min, s.median, s.max]
    return [sig3(None if v is None else v / scale) for v in cells] + [str(s.n)]


def _times_legend(u):
    return (f"Times in {u}, three significant digits, each phase timed alone with perf_counter in a fresh worker per "
            f"variant; serialize = GraphDef to bytes, timed after the runs; later = the runs after the first "
            f"(min/median/max over n).")


def phase_tables(report, wide=False):
    """Sizes and Times per variant, or one Phases table when wide: (title, Table, legend) sections."""
    ok = [r for r in report.rows if r.ok]
    u, scale = time_unit([v for r in ok for v in (*(getattr(r, n) for _, n in TIME_FIELDS), *r.runs_s)])
    sizes = ("graph bytes", "nodes", "const bytes", "peak RSS", "max abs err")
    times = (*(t for t, _ in TIME_FIELDS), "later min", "later median", "later max", "n")
    if wide:
        rows = tuple((r.variant, *_sizes(r), *_times(r, scale)) for r in ok)
        return [("Phases", Table(("variant", *sizes, *times), rows), f"{_times_legend(u)} {SIZES_LEGEND}")]
    return [("Sizes", Table(("variant", *sizes), tuple((r.variant, *_sizes(r)) for r in ok)), SIZES_LEGEND),
            (f"Times ({u})", Table(("variant", *times), tuple((r.variant, *_times(r, scale)) for r in ok)),
             _times_legend(u))]


def _limits_cell(tensor, graphdef):
    """Both 2 GiB limits' batches, or one when they agree."""
    if graphdef is None:
        return "no limit"
    return f"{graphdef:,}" if tensor in (None, graphdef) else f"{tensor:,} / {graphdef:,}"


def why_table(report):
    """The "why" table: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    rows = tuple((r["variant"], fmt_int(r["embedded_bytes"]), f"{r['graph_over_data']:.4f}",
                  _limits_cell(r["max_tensor_batch"], r["max_batch"]),
                  "folded" if r["folded"] else sig3(r["first_over_later"]), sig3(r["peak_over_data"]))
                 for r in why_rows(report))
    table = Table(("variant", "embedded bytes", "graph / data", "max batch: tensor / GraphDef", "first / later",
                   "peak RSS / data"), rows)
    legend = ("data = the bytes of X; max batch: tensor = the largest batch whose X, one tensor, stays under the "
              "2 GiB tensor limit at creation; GraphDef = the largest whose serialized GraphDef stays under 2 GiB, "
              "from this run's bytes per example; one number when both fall on the same batch (no limit when X "
              "is not in the graph); first / later = first run over the median later run; folded = the later "
              "runs skipped the network (no Conv2D in an untimed run after the timed ones), so no ratio is given.")
    return table, legend


def growth_table(report):
    """Resident-memory growth of each phase, in units of X's bytes."""
    rows = growth_rows(report)
    phases = [p for p in PHASES if any(r[p] is not None for r in rows)]
    body = tuple((r["variant"], *(None if r[p] is None else f"{r[p]:.2f}" for p in phases),
                  None if r["peak"] is None else f"{r['peak']:.1f}") for r in rows)
    legend = ("Growth of the worker's resident memory (RSS) during each phase divided by the bytes of X: 1.00 = "
              "growth by as many bytes as X holds, whatever fills them (activations, kernels, allocator caches); "
              "peak = peak resident memory / bytes of X, TensorFlow's own footprint included.")
    return Table(("variant", *(p.replace("_", " ") for p in phases), "peak"), body), legend


def summary_table(report):
    """One row per variant: graph bytes and each phase, with the later runs' median, range and count."""
    ok = [r for r in report.rows if r.ok]
    u, scale = time_unit([v for r in ok for v in (*(getattr(r, n) for _, n in TIME_FIELDS), *r.runs_s)])
    phases = [(t, n) for t, n in TIME_FIELDS if n != "serialize_s" and any(getattr(r, n) is not None for r in ok)]

    counts = {Summary.of(r.runs_s).n for r in ok}

    def cells(r):
        s = Summary.of(r.runs_s)
        return (r.variant, fmt_int(r.graph_bytes), *(sig3(None if getattr(r, n) is None else getattr(r, n) / scale)
                                                     for _, n in phases),
                sig3(s.median / scale), f"{sig3(s.min / scale)}-{sig3(s.max / scale)}",
                *([] if len(counts) == 1 else [str(s.n)]))

    table = Table(("variant", "graph bytes", *(t for t, _ in phases), "later median", "later range",
                   *([] if len(counts) == 1 else ["n"])), tuple(cells(r) for r in ok))
    over = f"n={counts.pop()} each" if len(counts) == 1 else "n"
    return (f"Phases ({u})", table, f"{workers_text(ok)}; later = the runs after the first ({over}); "
                                    f"--verbose: every table.")


def workers_text(rows):
    """'4 fresh workers per variant, forked from one that imported TensorFlow, the first measuring every phase'."""
    trials = [t for r in rows for t in r.trials] or rows
    most = max((len(r.trials) for r in rows), default=1)
    full = max((sum(bool(t.runs_s) for t in r.trials) for r in rows), default=1)
    starts = {t.worker_start for t in trials}
    how = {frozenset({"forked"}): ", forked from one process that imported TensorFlow",
           frozenset({"fresh"}): ", each importing TensorFlow itself"}.get(frozenset(starts), "")
    count = "One fresh worker" if most == 1 else f"{most} fresh workers"
    first = "the first" if full == 1 else f"the first {full}"
    whole = "" if full >= most else f", {first} measuring every phase, the others up to the first run"
    return f"{count} per variant{how}{whole}"


def render(report, fmt="simple", width=WIDTH, verbose=False, figure=None, part=False):
    """The whole compare report as text, fitted to width (None: one wide table per section): the answer, one table,
    the first findings; verbose adds every table and finding. Rows measured remotely or fetching a sum get a section
    of their own. A part of another page (part=True) has no header and no answer."""
    head = None if part else header(report)
    if has_remote(report):
        return _with_remote(report, head, fmt, width, verbose, figure)
    ok = any(r.ok for r in report.rows)
    sections = []
    if ok and not verbose:
        sections = [summary_table(report)]
    elif ok:
        sections = [*phase_tables(report, wide=width is None), ("Why", *why_table(report)),
                    ("Memory: resident-memory growth per phase, in units of X's bytes", *growth_table(report))]
    headline, findings = told(report)
    return page(head, sections, "What this run shows:" if ok else None, findings if ok else (),
                failures(report.rows, lambda r: r.label), fmt, width,
                answer=() if part else headline, verbose=verbose, figure=figure)


def _with_remote(report, head, fmt, width, verbose, figure):
    """The remote section and its sentences, then the in-process page of the rows fetching the whole output."""
    local = replace(report, rows=tuple(r for r in report.rows if not r.remote and r.returns != "sum"))
    # The in-process rows as a part of this page: the remote answer opens the whole page.
    inside = render(local, fmt, width, verbose, part=True) if local.rows else Page("")
    ok = any(r.ok for r in report.rows)
    # Rows fetching a sum get this section too; it speaks of remote sessions only when a row ran on one.
    title, shows = (("Remote sessions", "What the remote runs show:") if any(r.remote for r in report.rows)
                    else ("The output summed in the graph", "What the summed runs show:"))
    remote = page(head, [(title, *remote_table(report))] if ok else [],
                  shows if ok else None, remote_sentences(report) if ok else (),
                  failures([r for r in report.rows if r not in local.rows], lambda r: r.label), fmt, width,
                  answer=remote_answer(report) if ok else (), verbose=verbose, figure=figure)
    # Both pages' findings go to the JSON: the remote ones, then the in-process ones.
    return Page(remote.rstrip("\n") + "\n\n" + inside, remote.findings + inside.findings)
