"""The registry: every command of tfgraphs that has a Python API, one entry each naming what it is made of (its
Config, job, page, figure and CSV lines, each by dotted name and imported only when the command runs or its results
are shown), and the public functions made from it: one per command, report() reading a saved one back, and
watching() a notebook's own cells; and Report, what each returns. The command line's subcommands are made from
the same entries (cli)."""

import base64
import contextlib
import functools
import inspect as signatures
import os
import sys
from collections.abc import MutableMapping
from dataclasses import dataclass, fields
from importlib import import_module

from tfgraphs.api.notebook import progress, show_figures_inline
from tfgraphs.api.outputs import Output, command_outputs, table_format, writable, writes_into
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc, write_atomic, write_doc
from tfgraphs.render.page import WIDTH, stated
from tfgraphs.spec.network import TF_BASELINE_BYTES, UNSWEPT
from tfgraphs.spec.options import (REMOTE_TIMEOUT_S, REQUIRED, RUNNING, Option, byte_size, config_of, declared, flag,
                                   optional_path, running, running_values)
from tfgraphs.spec.options import path as checked_path
from tfgraphs.spec.owngraph import WATCHED_BYTES
from tfgraphs.spec.pitfalls import LESSONS

# The running options of a measuring command: all but --output, which leaves stdout to a watched script.
MEASURING = tuple(n for n in RUNNING if n != "output")
# How a saved document is read back: by the records of the command that wrote it.
DOCUMENTS = "tfgraphs.records.results:DOCUMENTS"
LOAD = "tfgraphs.records.results:load"


# Keeps a notebook's page readable: the tables take the page's font, numbers line up, rows are told apart.
_STYLE = ("<style>.tfgraphs-report table{border-collapse:collapse;margin:0.3em 0 0.6em}"
          ".tfgraphs-report td,.tfgraphs-report th{padding:0.15em 0.6em;border-bottom:1px solid #ddd;"
          "font-variant-numeric:tabular-nums}.tfgraphs-report pre{white-space:pre-wrap}</style>")


def rendered(result, command, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The result's page by its command's renderer, fitted to width (None: tables left wide); verbose keeps every
    table and finding; figure is an <img> for HTML (text names --plot)."""
    if fmt != "html" and figure is None and command.figure_name:
        figure = f"Figure: --plot PATH (in Python, Report.plot()): {command.shows}."
    return command.render(result, fmt, width, verbose=verbose, figure=figure)


class Report:
    """A command's results: `.rows` as plain dicts, `str()` as text, HTML in Jupyter, `.plot()` and `.to_json()`."""

    def __init__(self, result, command, refused=()):
        self.result = result
        self.entry = command            # the registry's Command that made it
        self.refused = tuple(refused)   # one line per row the plan refused to run, as the command line prints them
        self._png = None                # the figure's PNG, drawn when a notebook first shows the report
        self._pages = {}                # (fmt, width, verbose, figure) -> its Page, rendered once

    @property
    def command(self):
        """The command that made it: compare, explain, sweep, shapes, pitfalls, inspect or unembed."""
        return self.result.command

    @property
    def config(self):
        """What was asked for, as plain data (the JSON document's config)."""
        return getattr(self.result, "config", {})

    @property
    def rows(self):
        """The result's rows as plain dicts: measured rows, an inspection's largest Consts, or what unembed moved."""
        return [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in getattr(self.result, self.entry.table)]

    @property
    def failed(self):
        """True when a measured row failed (a crashed or timed-out worker, a refused row, a wrong output)."""
        from tfgraphs.records.results import Results   # the records, and the judge's scipy, load with the first result

        if isinstance(self.result, Results):
            return any(not r.ok for r in self.result.rows)
        return not getattr(self.result, "ok", True)

    def text(self, fmt="simple", width=WIDTH, verbose=False):
        """The text report in any tabulate format, fitted to width columns (None: every table whole): the answer,
        the key tables and the first findings, or with verbose=True every table and finding."""
        return str(self._page(table_format(fmt), width, verbose=verbose is True))

    def _page(self, fmt="simple", width=WIDTH, verbose=False, figure=None):
        """The Page (text and the findings it states) in one way of showing it, rendered on first use only."""
        shown = (fmt, width, verbose, figure)
        if shown not in self._pages:
            self._pages[shown] = rendered(self.result, self.entry, fmt, width, verbose=verbose, figure=figure)
        return self._pages[shown]

    def __str__(self):
        return self.text()

    def __repr__(self):
        return f"<tfgraphs.Report {self.command}: {len(self.rows)} rows{', some failed' if self.failed else ''}>"

    def _repr_html_(self):
        """The answer, the figure inline, every table, then the findings (past the first few, folded away)."""
        png = self._repr_png_()
        figure = (f'<img alt="{self.command} figure" style="max-width:100%" '
                  f'src="data:image/png;base64,{base64.b64encode(png).decode()}">') if png else None
        return (f'{_STYLE}<div class="tfgraphs-report">'
                f'{self._page("html", None, verbose=True, figure=figure)}</div>')

    def _repr_png_(self):
        """The figure as PNG bytes, drawn once; None without matplotlib or a figure for this command."""
        from tfgraphs.render import plots

        if self._png is None:
            self._png = b""
            if self.entry.figure and plots.available():
                try:
                    self._png = plots.png(self.entry.figure(self.result))
                except (ValueError, KeyError, IndexError, TypeError):
                    pass   # rows the figure cannot draw (every one failed, say): the tables still show
        return self._png or None

    def plot(self, path=None):
        """A matplotlib Figure of the report (the backend is left alone); also saved as PNG to path if given."""
        from tfgraphs.render import plots

        plots.require()
        if not self.entry.figure:
            raise UsageError(f"{self.command} has no plot: it draws no figure")
        figure = self.entry.figure(self.result)
        if path:
            writable(plot=path)
            plots.save(figure, path)
        show_figures_inline()
        return figure

    def to_dict(self):
        """The JSON document, as a dict: the results, and every finding with the verdicts it states."""
        from tfgraphs.records.results import Results

        doc = self.result.to_dict()
        if isinstance(self.result, Results):
            # Every page states the same findings, whatever its format, width or verbosity: one already shown gives them.
            shown = next(iter(self._pages.values()), None) or self._page(width=None, verbose=True)
            doc["findings"] = stated(shown)
        return doc

    def to_json(self, path):
        """Write the whole report to path as the JSON document `tfgraphs report` reads."""
        writable(json=path)
        write_doc(self.to_dict(), path)

    def to_csv(self, path):
        """Write one flat row per variant x trial (per call for shapes) to path, times in s and sizes in bytes."""
        from tfgraphs.render.csv import write_csv

        if not self.entry.lines:
            raise UsageError(f"{self.command} has no rows to write as CSV")
        writable(csv=path)
        write_csv(self.result, self.entry.lines, path)

    def to_text(self, text, path):
        """Write the text report (as text() made it) to path, whole."""
        writable(output=path)
        write_atomic(path, lambda f: f.write(text))

    def write(self, json=None, csv=None, plot=None, output=None):
        """Write the JSON, CSV and PNG files and the text report asked for (None: not that one)."""
        if output:
            self.to_text(self.text(), output)
        if json:
            self.to_json(json)
        if csv:
            self.to_csv(csv)
        if plot:
            self.plot(plot)


def imported(name):
    """What a dotted name refers to, imported now: a module ("tfgraphs.jobs.shapes") or a name in one
    ("tfgraphs.render.network:render_compare")."""
    module, _, attribute = name.partition(":")
    found = import_module(module)
    return getattr(found, attribute) if attribute else found


def takes(*sources, without=(), writes=None, named=None):
    """Give func(**checked) the signature the options of sources declare (Config classes or dicts of options, less
    the keywords in without), and check each value, and what they would write, before func sees them.

    writes(checked options): the Outputs beyond json, csv and plot (api.outputs), when the command has more.
    func.check(**given) is that check alone, and func.run(**checked) func without it: the command line checks every
    flag, the outputs it writes itself included, then runs. named: the command's {figure} and {lines}, as its
    options' help names them."""
    options = declared(*sources, without=without)
    kind = signatures.Parameter
    # A required option (a path) may be given by position; every other is a keyword with its declared default.
    parameters = ([kind(name, kind.POSITIONAL_OR_KEYWORD) for name, o in options.items() if o.default is REQUIRED]
                  + [kind(name, kind.KEYWORD_ONLY, default=o.default) for name, o in options.items()
                     if o.default is not REQUIRED])
    signature = signatures.Signature(parameters)

    def decorate(func):
        def check(*args, **given):
            try:
                bound = signature.bind(*args, **given)
            except TypeError as exc:
                raise TypeError(f"{func.__name__}(): {exc}") from None
            bound.apply_defaults()
            values = {name: options[name].check(name, value) for name, value in bound.arguments.items()}
            command_outputs(values, writes(values) if writes else ())
            return values

        @functools.wraps(func)
        def checked(*args, **given):
            return func(**check(*args, **given))
        checked.__signature__ = signature
        checked.check = check
        checked.run = func
        checked.__doc__ = described(func.__doc__, options, named or {})
        checked.options = options
        return checked
    return decorate


def described(summary, options, named):
    """The function's one-line summary, then each keyword with its declared help, as help() and the docs show it."""
    keywords = [f"    {name}: {o.help.format(**named)}" for name, o in options.items()]
    return "\n".join([summary, "", "Args:", *keywords])


def measured(command, **options):
    """What a measuring command's API function does: its Config from the checked options, run as Command.measure
    runs it."""
    return command.measure(command.job, config_of(command.config, options), **running_values(options))


@dataclass(frozen=True)
class Command:
    """One command: its help, the options its API function takes and what it does with them, and how its results
    are saved, shown, drawn and written as CSV. Its Config, job, page, figure and CSV lines are given by dotted name
    (see imported) and imported on first use."""

    name: str
    summary: str                    # its line in `tfgraphs --help`
    description: str                # what its own --help says it does
    doc: str                        # its API function's one-line docstring
    config_name: str                # the Config its options build
    job_name: str                   # the job that plans and runs it: a Job, or a module with plan and run (jobs/)
    render_name: str                # render(results, fmt, width, verbose=, figure=): its results' page
    beside: tuple | None = None     # the options it takes beside its Config's (dicts, or Configs by dotted name);
                                    # None: how it runs and what it writes
    first: tuple = ()               # its Config's keywords that lead its signature and --help, when not its first
    without: tuple = ()             # keywords of its Config it does not take
    writes: object = None           # writes(options): the Outputs beyond --json, --csv and --plot
    body: object = measured         # body(command, **checked options): what its API function does
    figure_name: str | None = None  # figure(results): a matplotlib Figure; None: it has no figure
    shows: str | None = None        # what its figure shows, as its answer names it
    lines_name: str | None = None   # the Lines of its CSV (render.csv); None: it has no CSV
    table: str = "rows"             # the attribute of its result that Report.rows lists
    comparable: bool = False        # whether `tfgraphs report A B` compares two of its documents
    progress: bool = False          # whether it reports progress while its workers run (--quiet silences it)

    @property
    def config(self):
        """The Config class its options build."""
        return imported(self.config_name)

    @property
    def job(self):
        """The job that plans and runs it."""
        return imported(self.job_name)

    @property
    def render(self):
        """Its renderer: render(results, fmt, width, verbose=, figure=) -> its page."""
        return imported(self.render_name)

    @property
    def figure(self):
        """figure(results) -> a matplotlib Figure, or None when it draws none."""
        return imported(self.figure_name) if self.figure_name else None

    @property
    def lines(self):
        """The Lines of its CSV, or None when it has none."""
        return imported(self.lines_name) if self.lines_name else None

    @property
    def document(self):
        """How its results are saved."""
        return imported(DOCUMENTS)[self.name]

    def options(self):
        """The options beside its Config's: those declared for it, else every running option, less --csv without CSV
        lines and --plot without a figure."""
        if self.beside is not None:
            return tuple(imported(o) if isinstance(o, str) else o for o in self.beside)
        return (running(*(n for n in MEASURING
                          if (n != "csv" or self.lines_name) and (n != "plot" or self.figure_name))),)

    def function(self):
        """Its API function: the declared keywords, each checked as the command line checks it, then its body."""
        def call(**options):
            return self.body(self, **options)
        call.__name__ = call.__qualname__ = self.name
        call.__doc__ = self.doc
        config = self.config
        leading = {f.name: f.metadata["option"] for f in fields(config) if f.name in self.first}
        lines = self.lines
        made = takes(leading, config, *self.options(), without=self.without, writes=self.writes,
                     named={"figure": self.shows, "lines": lines.each if lines else None})(call)
        made.__module__ = "tfgraphs"
        return made

    def measure(self, job, config, *, quiet=False, timeout=None, force=False, fresh_workers=False, json=None,
                csv=None, plot=None, output=None, **options):
        """Run the plan of job (its own, or one its body chose) with progress; the Report, with its JSON, CSV and
        plot written where asked.

        The caller (an API function made by takes()) has checked every option and output before building config.
        """
        from tfgraphs import processes
        from tfgraphs.jobs.runner import check_memory

        if timeout is None and getattr(config, "target", ""):
            # A server that accepts the connection and never answers would hang a remote run: it gets a deadline.
            timeout = REMOTE_TIMEOUT_S
        plan = job.plan(config)
        for notice in plan.notices if plan.runnable else plan.notices[:-1]:
            print(f"tfgraphs: refusing {notice}", file=sys.stderr)
        if not plan.runnable:
            # Every row was refused: the last refusal is the error, so each one is still one line.
            raise UsageError(f"refusing {plan.notices[-1]}" if plan.notices else "nothing to run")
        # A server that imported TensorFlow stays beside the workers it forks.
        check_memory(plan, force, beside=0 if fresh_workers else TF_BASELINE_BYTES)
        with processes.workers(fork=not fresh_workers):
            found = Report(job.run(config, plan, progress(plan.workers, quiet or bool(output)), timeout=timeout,
                                   **options), self, refused=plan.notices)
        found.write(json=json, csv=csv, plot=plot, output=output)
        return found


# What tfgraphs.explain() takes beside its Config: where traces go, and a user's graph in place of the built-in
# network.
FOLDERS = {
    "trace": Option(None, optional_path, "write a Chrome trace (Perfetto, chrome://tracing) of the first and second "
                    "run of each variant x preset to DIR", metavar="DIR"),
    "tensorboard": Option(None, optional_path, "write each variant's graph for `tensorboard --logdir DIR`",
                          metavar="DIR"),
    "graph": Option(None, optional_path, "explain this .pb/.pbtxt GraphDef or SavedModel folder instead of the "
                    "built-in network (--batch, --dtype, --variants and --target do not apply)", metavar="PATH"),
}
OWNGRAPH = "tfgraphs.jobs.owngraph"   # the job of a user's graph, and its Config, in place of the seed network's
EXPLAIN_BESIDE = (FOLDERS, OWNGRAPH + ":Config", running(*MEASURING))
EXPLAIN_WITHOUT = ("returns", "path", "full_trials")   # owngraph's graph is --graph; every trial measures every phase
SEED_ONLY = ("batch", "dtype", "variants", "target")   # settings of the built-in network


def explain_writes(options):
    """The Outputs of --trace and --tensorboard: each folder, and every trace file and graph folder in it."""
    if options["trace"] is None and options["tensorboard"] is None:
        return []
    explain = COMMANDS["explain"]
    if options["graph"] is None:
        traces, boards = explain.job.writes(config_of(explain.config, options), options["trace"],
                                            options["tensorboard"])
    else:
        owngraph = imported(OWNGRAPH)
        traces, boards = owngraph.writes(config_of(owngraph.Config, {**options, "path": options["graph"]}),
                                         options["trace"], options["tensorboard"])
    return ((writes_into("trace", options["trace"], files=traces) if options["trace"] else [])
            + (writes_into("tensorboard", options["tensorboard"], wholes=boards) if options["tensorboard"] else []))


def explained(command, **options):
    """Run each variant, or the graph at `graph`, under the presets, with its traces and graphs written."""
    run = {**running_values(options), "trace_dir": options["trace"], "tensorboard_dir": options["tensorboard"]}
    config = command.config
    if options["graph"] is None:
        return command.measure(command.job, config_of(config, options), **run)
    for name in SEED_ONLY:
        if options[name] != getattr(config, name):
            raise UsageError(f"--{name} sets the built-in network; it does not apply with --graph")
    owngraph = imported(OWNGRAPH)
    return command.measure(owngraph, config_of(owngraph.Config, {**options, "path": options["graph"]}), **run)


def inspect_writes(options):
    """The stripped copy, when asked: an Output beside --json."""
    return [Output(flag("strip_constants"), options["strip_constants"])] if options["strip_constants"] else []


def inspected(command, **options):
    """Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path; nothing is run."""
    job = command.job
    config = config_of(command.config, options)
    job.plan(config)
    found = Report(job.run(config), command)
    if config.json:
        found.to_json(config.json)
    return found


def unembed_writes(options):
    """OUT, a folder written whole: the new SavedModel replaces it."""
    return [Output("-o", options["out"], "whole")]


PITFALLS = (
    "Measure eight TF1 pitfalls on the seed network, each lesson on each of its variants in a fresh worker: "
    "executor-cache (which sess.run calls build a new executor: a new fetch list, reordered fetches, a fed "
    "intermediate tensor, make_callable and a callable made from CallableOptions), graph-growth (a training loop "
    "that creates an op on every step, against one that creates it once: each step's Extend and run, then "
    "graph.finalize()), saved-copies (X in Saver's .meta, a checkpoint and a frozen graph), placeholder-default "
    "(placeholder_with_default keeps its default in the GraphDef, fed or not), folding (what the constant folders "
    "can replace: a large or a scalar fetch, a raised folder limit, a stateful or fed input, read from the graphs "
    "that ran), pruning (a run executes only its fetches' fan-in: relu as a tensor, as an op, and an assign_add "
    "outside it, counted from step stats), feed-alignment (the same feed from a 64-byte-aligned buffer and from one "
    "8 bytes off it) and executor-leak (every new set of targets gets an executor the session keeps: resident "
    "memory per new set). Variants per lesson: "
    + "; ".join(f"{name}: {', '.join(lesson.variants)}" for name, lesson in LESSONS.items()) + ".")
SHAPES = (
    "Run Conv1D(filters, kernel) on (batch, L, channels) float32 for L = start ... start+count-1, in passes over "
    "every length, each mode in a fresh worker, and measure what a length seen for the first time costs each mode, "
    "counting tf.function traces and graphs built, with a fixed-block mode for comparison. With no GPU, cuDNN "
    "autotuning does not apply; oneDNN's part in the cost is measured instead by also running --switch-modes with "
    "TF_ENABLE_ONEDNN_OPTS=0. With a GPU they run with TF_CUDNN_USE_AUTOTUNE=0 instead (that path is untested). "
    "Every mode runs in its own worker, one after another; progress lines on stderr name each one.")
WATCH = (
    "Run SCRIPT in a fresh process as `python SCRIPT ARGS...` would (the same sys.argv, __name__ == '__main__', its "
    "own stdin, stdout and stderr, and the exit status a shell shows for it), with TensorFlow's Session.run, "
    "make_callable and op creation watched; what it leaves running when it ends is ended and named. When it ends, "
    "raises or is interrupted, say by the script's own line numbers which lines embedded large constants, kept "
    "adding ops after the first run, fed the same large array on every call, paid a first run for each new set of "
    "fed and fetched names, or retraced a tf.function; a clean script gets no finding. Flags go before SCRIPT: "
    "everything after it is the script's, as in `tfgraphs watch --tf1 train.py --epochs 3`.")

COMMANDS = {c.name: c for c in (
    Command("compare", "the seed network fed four ways, each phase measured in a fresh worker",
            "Build conv2d -> avg_pool -> relu from the same data in several ways and measure graph size, build, "
            "session, init, first run and later runs for each.",
            "Build the seed network from the same data in each variant and measure every phase in a fresh worker.",
            "tfgraphs.spec.network:Config", "tfgraphs.jobs.network:COMPARE", "tfgraphs.render.network:render_compare",
            figure_name="tfgraphs.render.plots:compare_figure", shows="time to the first result, by phase",
            lines_name="tfgraphs.render.csv:TRIALS", comparable=True, progress=True),
    Command("explain", "what the first sess.run pays for: optimizer ablation, per-op traces",
            "Run each variant under session presets that switch graph optimizers off, trace the first and a later "
            "run of each, and split the first run's extra time into Grappler, classic constant folding and the rest.",
            "Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs.",
            "tfgraphs.spec.network:ExplainConfig", "tfgraphs.jobs.network:EXPLAIN", "tfgraphs.render.explain:render",
            beside=EXPLAIN_BESIDE, without=EXPLAIN_WITHOUT, writes=explain_writes, body=explained,
            figure_name="tfgraphs.render.plots:explain_figure", shows="where the first run went",
            lines_name="tfgraphs.render.csv:TRIALS", comparable=True, progress=True),
    Command("sweep", "graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit",
            "Measure each variant at each batch in a fresh worker, fit graph bytes = a*batch + b, predict the "
            "largest batch whose GraphDef serializes under 2 GiB, and ask TensorFlow to embed the next one (from a "
            "zero-stride array view).",
            "Measure each variant at each batch, fit graph bytes against batch and put the predicted limit to "
            "TensorFlow.", "tfgraphs.spec.network:SweepConfig", "tfgraphs.jobs.network:SWEEP",
            "tfgraphs.render.network:render_sweep", without=UNSWEPT, first=("batches",),
            figure_name="tfgraphs.render.plots:sweep_figure", shows="graph bytes and run time against batch",
            lines_name="tfgraphs.render.csv:TRIALS", comparable=True, progress=True),
    Command("inspect", "what is inside a GraphDef or SavedModel file (nothing is run)",
            "Report a GraphDef's size, node count, op types, largest Const nodes and headroom to 2 GiB. The graph is "
            "only parsed: never imported or executed.",
            "Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path; nothing is run.",
            "tfgraphs.jobs.owngraph:InspectConfig", "tfgraphs.jobs.owngraph:INSPECT",
            "tfgraphs.render.user:render_inspect", beside=(), writes=inspect_writes, body=inspected,
            table="largest_consts"),
    Command("unembed", "move a graph's large constants into variables loaded from a checkpoint",
            "Write PATH (a GraphDef or SavedModel) as a TF1 SavedModel in OUT in which every Const of at least "
            "--min-bytes is a non-trainable variable restored from the checkpoint. Load it with "
            "tf.compat.v1.saved_model.loader.load(sess, ['serve'], OUT). The input is never modified.",
            "Write the graph at path as a TF1 SavedModel in out, its Consts of min_bytes or more moved into "
            "variables.", "tfgraphs.jobs.owngraph:UnembedConfig", "tfgraphs.jobs.owngraph:UNEMBED",
            "tfgraphs.render.user:render_unembed", beside=(running("timeout", "fresh_workers", "quiet", "json"),),
            without=("trials", "presets"), writes=unembed_writes, table="moved", progress=True),
    Command("shapes", "the cost of each new input length: retracing, kernel selection, fixed blocks",
            SHAPES,
            "Run each mode over many input lengths in fresh workers; switch_modes None: the default ones in modes.",
            "tfgraphs.spec.shapes:Config", "tfgraphs.jobs.shapes", "tfgraphs.render.shapes:render",
            beside=(running("timeout", "fresh_workers", "quiet", "json", "csv", "plot"),),
            figure_name="tfgraphs.render.plots:shapes_figure", shows="time per call against input length",
            lines_name="tfgraphs.render.csv:CALLS", table="rows", progress=True),
    Command("pitfalls", "the executor cache, a graph that grows in a loop, copies of X in saved files, "
                        "placeholder_with_default, what can be folded, what a run executes",
            PITFALLS, "Measure each lesson on each of its variants, every one in a fresh worker.",
            "tfgraphs.spec.pitfalls:Config", "tfgraphs.jobs.network:PITFALLS", "tfgraphs.render.pitfalls:render",
            figure_name="tfgraphs.render.plots:pitfalls_figure",
            shows="the graph-growth steps (or the executor-cache runs)", lines_name="tfgraphs.render.csv:CASES",
            progress=True),
    Command("watch", "run your own TF1 script unchanged and say, by its own line numbers, what its graph costs",
            WATCH,
            "Run the script in a fresh process, as `python SCRIPT ARGS` would, with TensorFlow's graph-mode calls "
            "watched.", "tfgraphs.jobs.watch:Config", "tfgraphs.jobs.watch", "tfgraphs.render.user:render_watch",
            beside=(running("quiet", "json", "csv", "plot", "output"),), figure_name="tfgraphs.render.plots:watch_figure",
            shows="each call site's runs, and the bytes of each large Const by its line",
            lines_name="tfgraphs.render.csv:RUNS", table="calls", progress=True),
)}


class Functions(MutableMapping):
    """{command: its API function}, each made from its registry entry when first asked for (making it imports the
    command's Config)."""

    def __init__(self):
        self.made = {}

    def __getitem__(self, name):
        if name not in self.made:
            self.made[name] = COMMANDS[name].function()
        return self.made[name]

    def __setitem__(self, name, function):
        self.made[name] = function

    def __delitem__(self, name):
        del self.made[name]

    def __iter__(self):
        return iter(dict.fromkeys([*COMMANDS, *self.made]))

    def __len__(self):
        return len(set(COMMANDS) | set(self.made))


# tfgraphs.compare() and the rest: one function per command.
FUNCTIONS = Functions()


def render(result, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """Any result as text, by the command that made it (see report.rendered)."""
    return rendered(result, COMMANDS[result.command], fmt, width, verbose, figure)


def report(path):
    """The Report saved at path by --json or Report.to_json, ready to print, show or plot again."""
    if not isinstance(path, (str, os.PathLike)):
        # An int would be opened as a file descriptor, and closed.
        raise UsageError(f"report() takes the path of a saved document (a str or os.PathLike), not {type(path).__name__}")
    path = checked_path("path", path)
    try:
        result = imported(LOAD)(read_doc(path))
        found = Report(result, COMMANDS[result.command])
        found.text()   # a document missing what its text needs is refused now, not when it is printed
        return found
    except UsageError:
        raise
    except KeyError as exc:
        raise UsageError(f"{path} is not a complete tfgraphs results file (no {exc} in it)") from None
    except ValueError as exc:
        raise UsageError(f"{path}: {_first_line(exc)}") from None
    except (TypeError, AttributeError, IndexError, ArithmeticError, RecursionError) as exc:
        # A field of the wrong type or range, wherever it is read: one line naming the file, never a traceback.
        raise UsageError(f"{path} is not a valid tfgraphs results file: {_first_line(exc)}") from None


def _first_line(exc):
    text = str(exc).strip().splitlines()
    return (text[0][:200] if text else type(exc).__name__)


class Watched:
    """What watching() saw in this process so far: report() renders it like every command's Report."""

    def __init__(self, hooks, min_bytes):
        self.hooks, self.min_bytes = hooks, min_bytes

    def report(self):
        """The Report of what was seen until now."""
        from tfgraphs.records.one_record import Watching

        doc = self.hooks.document()
        return Report(Watching.from_dict({**doc, "script": None, "min_bytes": self.min_bytes}), COMMANDS["watch"])


@contextlib.contextmanager
def watching(min_bytes=WATCHED_BYTES):
    """Watch the TensorFlow graph-mode calls made in this process (a notebook's cells) inside the with block."""
    from tfgraphs.worker.watch import Watch   # the hooks run here: the cells are in this process

    min_bytes = byte_size("min_bytes", min_bytes)
    hooks = Watch(min_bytes)
    hooks.start()
    try:
        yield Watched(hooks, min_bytes)
    finally:
        hooks.stop()
