"""The pages of the seed network's measuring commands: compare (with its section of remote rows), sweep, and two saved
results side by side (`tfgraphs report A B`)."""

from dataclasses import replace

from tfgraphs.findings import compare as compare_findings
from tfgraphs.findings import remote as remote_findings
from tfgraphs.findings import sweep as sweep_findings
from tfgraphs.findings.compare import why_rows
from tfgraphs.findings.files import comparison_sentences, lines
from tfgraphs.findings.compare import PHASES, growth_rows
from tfgraphs.findings.remote import has_remote
from tfgraphs.findings.sweep import PEAK_SPAN_BYTES, peak_per_example
from tfgraphs.records.judge import ALPHA, MARGIN, RANK_SUM, Summary, ratio, ratio_text
from tfgraphs.records.sweep import fits
from tfgraphs.render.page import WIDTH, Page, Table, failures, machine_line, page, runs_text, time_unit
from tfgraphs.spec import network
from tfgraphs.spec.options import FEWEST
from tfgraphs.units import fmt_bytes, fmt_int, sig3

TIME_FIELDS = (("build", "build_s"), ("serialize", "serialize_s"), ("session", "session_s"), ("init", "init_s"),
               ("first run", "first_run_s"))
SIZES_LEGEND = ("graph bytes = serialized GraphDef; const bytes = bytes held in Const tensors; peak RSS = the "
                "worker's peak resident memory; max abs err = largest difference from the NumPy reference.")


def header(results):
    """What ran, then where."""
    c = results.config
    return (f"{results.command}: batch {c.batch:,}, {c.dtype}, {runs_text(c)}, seed {c.seed}"
            + (f", --target {c.target}" if c.target else "") + f"\n{machine_line(results)}")


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


def phase_tables(results, wide=False):
    """Sizes and Times per variant, or one Phases table when wide: (title, Table, legend) sections."""
    ok = [r for r in results.rows if r.ok]
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


def why_table(results):
    """The "why" table: embedded bytes, graph/data, batch limit, first/later, peak/data."""
    rows = tuple((r["variant"], fmt_int(r["embedded_bytes"]), f"{r['graph_over_data']:.4f}",
                  _limits_cell(r["max_tensor_batch"], r["max_batch"]),
                  "folded" if r["folded"] else sig3(r["first_over_later"]), sig3(r["peak_over_data"]))
                 for r in why_rows(results))
    table = Table(("variant", "embedded bytes", "graph / data", "max batch: tensor / GraphDef", "first / later",
                   "peak RSS / data"), rows)
    legend = ("data = the bytes of X; max batch: tensor = the largest batch whose X, one tensor, stays under the "
              "2 GiB tensor limit at creation; GraphDef = the largest whose serialized GraphDef stays under 2 GiB, "
              "from this run's bytes per example; one number when both fall on the same batch (no limit when X "
              "is not in the graph); first / later = first run over the median later run; folded = the later "
              "runs skipped the network (no Conv2D in an untimed run after the timed ones), so no ratio is given.")
    return table, legend


def growth_table(results):
    """Resident-memory growth of each phase, in units of X's bytes."""
    rows = growth_rows(results)
    phases = [p for p in PHASES if any(r[p] is not None for r in rows)]
    body = tuple((r["variant"], *(None if r[p] is None else f"{r[p]:.2f}" for p in phases),
                  None if r["peak"] is None else f"{r['peak']:.1f}") for r in rows)
    legend = ("Growth of the worker's resident memory (RSS) during each phase divided by the bytes of X: 1.00 = "
              "growth by as many bytes as X holds, whatever fills them (activations, kernels, allocator caches); "
              "peak = peak resident memory / bytes of X, TensorFlow's own footprint included.")
    return Table(("variant", *(p.replace("_", " ") for p in phases), "peak"), body), legend


def summary_table(results):
    """One row per variant: graph bytes and each phase, with the later runs' median, range and count."""
    ok = [r for r in results.rows if r.ok]
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
    # A worker that measured every phase read its peak memory; where no other timed later runs, runs_s tells.
    peaked = any(t.peak_rss_bytes is not None for r in rows for t in r.trials)
    full = max((sum(bool(t.peak_rss_bytes is not None if peaked else t.runs_s) for t in r.trials) for r in rows),
               default=1)
    later = peaked and any(t.runs_s and t.peak_rss_bytes is None for r in rows for t in r.trials)
    starts = {t.worker_start for t in trials}
    how = {frozenset({"forked"}): ", forked from one process that imported TensorFlow",
           frozenset({"fresh"}): ", each importing TensorFlow itself"}.get(frozenset(starts), "")
    count = "One fresh worker" if most == 1 else f"{most} fresh workers"
    first = "the first" if full == 1 else f"the first {full}"
    others = "the first and later runs" if later else "up to the first run"
    whole = "" if full >= most else f", {first} measuring every phase, the others {others}"
    return f"{count} per variant{how}{whole}"


def render_compare(results, fmt="simple", width=WIDTH, verbose=False, figure=None, part=False):
    """The compare page of results, as text, fitted to width (None: one wide table per section): the answer, one table,
    the first findings; verbose adds every table and finding. Rows measured remotely or fetching a sum get a section
    of their own. A part of another page (part=True) has no header and no answer."""
    head = None if part else header(results)
    if has_remote(results):
        return _with_remote(results, head, fmt, width, verbose, figure)
    ok = any(r.ok for r in results.rows)
    sections = []
    if ok and not verbose:
        sections = [summary_table(results)]
    elif ok:
        sections = [*phase_tables(results, wide=width is None), ("Why", *why_table(results)),
                    ("Memory: resident-memory growth per phase, in units of X's bytes", *growth_table(results))]
    headline, findings = compare_findings.answer_and_findings(results)
    return page(head, sections, "What this run shows:" if ok else None, findings if ok else (),
                failures(results.rows, lambda r: r.label), fmt, width,
                answer=() if part else headline, verbose=verbose, figure=figure)


def _with_remote(results, head, fmt, width, verbose, figure):
    """The remote section and its sentences, then the in-process page of the rows fetching the whole output."""
    local = replace(results, rows=tuple(r for r in results.rows if not r.remote and r.returns != "sum"))
    # The in-process rows as a part of this page: the remote answer opens the whole page.
    inside = render_compare(local, fmt, width, verbose, part=True) if local.rows else Page("")
    ok = any(r.ok for r in results.rows)
    # Rows fetching a sum get this section too; it speaks of remote sessions only when a row ran on one.
    title, shows = (("Remote sessions", "What the remote runs show:") if any(r.remote for r in results.rows)
                    else ("The output summed in the graph", "What the summed runs show:"))
    answer, findings = remote_findings.answer_and_findings(results) if ok else ((), ())
    remote = page(head, [(title, *remote_table(results))] if ok else [], shows if ok else None, findings,
                  failures([r for r in results.rows if r not in local.rows], lambda r: r.label), fmt, width,
                  answer=answer, verbose=verbose, figure=figure)
    # Both pages' findings go to the JSON: the remote ones, then the in-process ones.
    return Page(remote.rstrip("\n") + "\n\n" + inside, remote.findings + inside.findings)


def remote_table(results):
    """Every ok row with its target, fetch, bytes per run and times, in one time unit."""
    ok = [r for r in results.rows if r.ok]
    unit = time_unit([v for r in ok for v in (r.session_s, r.first_run_s, *r.runs_s)])
    u = unit[0]
    headers = ("row", "target", "fed / run", "fetched / run", "graph bytes", f"session {u}", f"first {u}",
               f"later median {u}", "n", "X on", "between tasks")
    body = []
    for r in ok:
        s = Summary.of(r.runs_s)
        body.append((r.label, r.target or "in-process", fmt_int(r.bytes_fed_per_run), fmt_int(r.bytes_fetched_per_run),
                     fmt_int(r.graph_bytes), sig3(r.session_s / unit[1]), sig3(r.first_run_s / unit[1]),
                     sig3(s.median / unit[1]), str(s.n), r.data_device, fmt_int(r.traced_between_tasks_bytes)))
    table = Table(headers, tuple(body), keys=2, wrap=((1, 28), (9, 24)))
    remote = any(r.remote for r in ok)
    legend = (f"Times in {u}. target = "
              + ("the grpc:// URL the session ran on (a fresh server per worker for --target local), or in-process"
                 if remote else "in-process: every row's session ran in this worker")
              + "; fed / fetched = bytes fed to and fetched from the session on every run"
              + (" (sent over gRPC to a remote one; in-process they are handed over in memory)" if remote else
                 ", handed over in memory in-process")
              + "; graph bytes = the serialized GraphDef's size"
              + (" (a remote session is sent it at its first run)" if remote else "")
              + ("; X on = the device that held X in a two-task cluster; between tasks = bytes one traced run "
                 "received from another task (RecvTensor)" if any(r.network_device for r in ok) else
                 "; X on and between tasks are for a two-task cluster (--target local:ps,worker), none here")
              + "." + (" On 127.0.0.1 these bytes are real, the bandwidth is not a network's." if remote else ""))
    return table, legend


def sweep_header(results):
    """What ran, then where."""
    c = results.config
    return (f"sweep: batches {', '.join(f'{b:,}' for b in c.batches)}, {c.dtype}, {runs_text(c)}, "
            f"seed {c.seed}\n{machine_line(results)}")


def _regime(row):
    return None if row.folded is None else ("yes" if row.folded else "no")


def points_table(results):
    """Graph bytes, first run, median later run and peak memory per variant x batch, in one time unit."""
    order = {v: i for i, v in enumerate(results.config.variants)}
    ok = sorted((r for r in results.rows if r.ok), key=lambda r: (order.get(r.variant, 0), r.batch))
    u, scale = time_unit([t for r in ok for t in (r.first_run_s, *r.runs_s)])
    rows = tuple((r.variant, fmt_int(r.batch), fmt_int(network.data_bytes(r.batch, results.config.dtype)),
                  fmt_int(r.graph_bytes), sig3(r.first_run_s / scale), sig3(r.later_median_s / scale),
                  None if r.folded else sig3(ratio(r.first_run_s, r.later_median_s)), fmt_bytes(r.peak_rss_bytes))
                 for r in ok)
    regimes = any(r.folded is not None for r in ok)
    if regimes:
        rows = tuple((*cells, _regime(r)) for cells, r in zip(rows, ok))
    legend = (f"Times in {u}; each point is a fresh worker (the median when there are several trials). data bytes = "
              f"the bytes of X; graph bytes = the serialized GraphDef; later median = median of the runs after the "
              f"first; peak RSS = the worker's peak resident memory." + (" folded = yes when no Conv2D was left in the "
              "graph that ran (one untimed run after the timed ones): its later runs skip the network, so it gets no "
              "first / later ratio." if regimes
              else ""))
    table = Table(("variant", "batch", "data bytes", "graph bytes", "first run", "later median", "first / later",
                   "peak RSS", *(("folded",) if regimes else ())), rows, keys=2)
    return table, legend, u


def _fit_limits_cell(fit, dtype):
    """Both 2 GiB limits' batches for a fitted line, or one when they agree."""
    if fit.max_batch is None:
        return "no limit"
    tensor = network.max_tensor_batch(dtype)
    return f"{fit.max_batch:,}" if tensor == fit.max_batch else f"{tensor:,} / {fit.max_batch:,}"


def fit_table(results):
    """The fitted line graph_bytes = a * batch + b per variant, and where it crosses 2 GiB."""
    example = network.example_bytes(results.config.dtype)
    rows = []
    for f in fits(results):
        peak = peak_per_example(results, f.variant)
        # The slope is shown only where the judge tells the end points' peaks apart; else it is no growth.
        copies = peak[0] if peak is not None and peak[1].differs else None
        rows.append((f.variant, fmt_int(f.bytes_per_example), fmt_int(example), fmt_int(f.overhead_bytes),
                     fmt_int(f.max_residual_bytes), _fit_limits_cell(f, results.config.dtype),
                     str(f.points), None if copies is None else f"{copies:.1f}"))
    legend = ("a = bytes per example; one example = H*W*C*itemsize; b = the other bytes. Least squares over the "
              "measured batches, a rounded to whole bytes and b refitted for it; residual = the largest distance in "
              "bytes of a measured graph from the line. max batch: tensor = the largest N whose X, one tensor, "
              "TensorFlow accepts at creation; GraphDef = the largest N with "
              f"a*N + b < 2 GiB ({network.GRAPHDEF_LIMIT:,} bytes), which can be serialized; one number when both "
              "agree. peak RSS / example = slope of peak memory against "
              "batch, in units of one example's bytes, shown when the batches span at least "
              f"{fmt_bytes(PEAK_SPAN_BYTES)} of data and the peaks of the largest and the smallest batch (one per "
              "fresh worker) differ by a rank test (Mann-Whitney U, 4 a side at least).")
    table = Table(("variant", "a", "one example", "b", "residual", "max batch: tensor / GraphDef", "points",
                   "peak RSS / example"), tuple(rows))
    return table, legend


def render_sweep(results, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The sweep page of results, as text, fitted to width (None: one wide table per section)."""
    head, ok = sweep_header(results), any(r.ok for r in results.rows)
    sections = []
    if ok:
        table, legend, u = points_table(results)
        sections.append((f"Points ({u})", table, legend))
    if ok and fits(results):
        sections.append(("Graph bytes = a * batch + b", *fit_table(results)))
    headline, findings = sweep_findings.answer_and_findings(results)
    return page(head, sections, "What this sweep shows:" if ok else None, findings if ok else (),
                failures(results.rows, lambda r: f"batch {r.batch:,} {r.label}"), fmt, width,
                answer=headline if ok else (), verbose=verbose, figure=figure)


def _value(phase, v):
    return fmt_bytes(v) if phase in ("graph bytes", "peak RSS") else f"{sig3(v * 1e3)} ms"


def _judged(v):
    """The table's cell: the outcome, then effect, interval, n and p; below the fewest trials, the outcome and n."""
    fewest = FEWEST[v.method]
    if min(v.n_a, v.n_b) < fewest:
        return f"cannot tell: n={v.n_a} and {v.n_b}, needs {fewest} a side"
    return f"{_outcome(v)}: {v.detail()}"


def _outcome(v):
    """The verdict in a few words: 'B larger', 'B smaller', 'no difference beyond 25%', 'cannot tell'."""
    return "B larger" if v.larger else "B smaller" if v.smaller else f"no difference beyond {v.margin_text()}" \
        if v.same else "cannot tell"


def render_versus(a, b, names, fmt="simple", width=WIDTH):
    """The comparison of reports a and b (saved as names[0] and names[1]) as text."""
    found = lines(a, b)
    head = "\n".join(f"{tag}: {name}, {r.command} {r.created or '(no date)'}, {machine_line(r)}"
                     for tag, name, r in (("A", names[0], a), ("B", names[1], b)))
    rows = tuple((f["row"], f["phase"], _value(f["phase"], f["a"]), _value(f["phase"], f["b"]),
                  f"{f['ratio']:.2f}x" if f["ratio"] is not None else None,
                  _judged(f["verdict"])) for f in found)
    table = Table(("row", "phase", "A", "B", "B / A", "judged: B against A, 95% CI, n"), rows, keys=2,
                  wrap=((5, 40),))
    legend = (f"Each value is the row's median over its trials (later median: over every later run). judged = a "
              f"{RANK_SUM} test of B's trials against A's (one value per trial, each a fresh worker): B larger or "
              f"smaller when it rejects at {ALPHA:.0%}, no difference when the {1 - ALPHA:.0%} interval of B/A lies "
              f"within {ratio_text(1 / MARGIN)} to {ratio_text(MARGIN)}, else cannot tell; the test needs "
              f"{FEWEST[RANK_SUM]} trials a side to tell a difference.")
    return page(head, [("A against B", table, legend)], "What this comparison shows:", comparison_sentences(found), (),
                fmt, width)
