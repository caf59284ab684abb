"""Every command of tfgraphs that has a Python API, one entry each holding what it is made of: its Config, job,
document, renderer, figure and CSV lines. The API functions are made from these entries in one loop (their keywords,
checks and run), and the command line's subcommands in another (cli)."""

import functools
import inspect as signatures
import sys
from dataclasses import dataclass, fields

from tfgraphs import children
from tfgraphs.api import explain, inspect
from tfgraphs.api.notebook import progress
from tfgraphs.api.outputs import Output, command_outputs
from tfgraphs.api.report import Report
from tfgraphs.errors import UsageError
from tfgraphs.jobs import explain as explain_job
from tfgraphs.jobs import inspect as inspect_job
from tfgraphs.jobs import pitfalls as pitfalls_job
from tfgraphs.jobs import seed
from tfgraphs.jobs import shapes as shapes_job
from tfgraphs.jobs import sweep as sweep_job
from tfgraphs.jobs import unembed as unembed_job
from tfgraphs.jobs import watch as watch_job
from tfgraphs.jobs.runner import check_memory
from tfgraphs.records.results import DOCUMENTS
from tfgraphs.render import compare, csv, explain as explain_text, inspect as inspect_text, pitfalls, plots, shapes
from tfgraphs.render import sweep, unembed, watch
from tfgraphs.spec.common import REMOTE_TIMEOUT_S, RUNNING, running, running_values
from tfgraphs.spec.limits import TF_BASELINE_BYTES
from tfgraphs.spec.options import REQUIRED, config_of, declared
from tfgraphs.spec.pitfalls import LESSONS
from tfgraphs.spec.pitfalls import Config as PitfallsConfig
from tfgraphs.spec.seed import UNSWEPT, ExplainConfig, SweepConfig
from tfgraphs.spec.seed import Config as SeedConfig
from tfgraphs.spec.shapes import Config as ShapesConfig


def takes(*sources, without=(), writes=None, named=None):
    """Give func(**checked) the signature the options of sources declare (Config classes or dicts of options, less
    the keywords in without), and check each value, and what they would write, before func sees them.

    writes(checked options): the Outputs beyond json, csv and plot (api.outputs), when the command has more.
    func.check(**given) is that check alone: the command line asks it of outputs it writes itself. named: the
    command's {figure} and {lines}, as its options' help names them."""
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
        checked.__doc__ = described(func.__doc__, options, named or {})
        checked.options = options
        return checked
    return decorate


def described(summary, options, named):
    """The function's one-line summary, then each keyword with its declared help, as help() and the docs show it."""
    said = [f"    {name}: {o.help.format(**named)}" for name, o in options.items()]
    return "\n".join([summary, "", "Args:", *said])


def measured(command, **options):
    """What a measuring command's API function does: its Config from the checked options, run as Command.measure
    runs it."""
    return command.measure(command.job, config_of(command.config, options), **running_values(options))


@dataclass(frozen=True)
class Command:
    """One command: its help, the options its API function takes and what it does with them, and how its results
    are saved, shown, drawn and written as CSV."""

    name: str
    summary: str                    # its line in `tfgraphs --help`
    description: str                # what its own --help says it does
    doc: str                        # its API function's one-line docstring
    config: type                    # the Config its options build
    job: object                     # the job module that plans and runs it (jobs/)
    render: object                  # render(result, fmt, width, verbose=, figure=): its results as text
    beside: tuple | None = None     # the options it takes beside its Config's; None: how it runs and what it writes
    first: tuple = ()               # its Config's keywords that lead its signature and --help, when not its first
    without: tuple = ()             # keywords of its Config it does not take
    writes: object = None           # writes(options): the Outputs beyond --json, --csv and --plot
    body: object = measured         # body(command, **checked options): what its API function does
    figure: object = None           # figure(result): a matplotlib Figure; None: it has no figure
    shows: str | None = None        # what its figure shows, as its answer names it
    lines: csv.Lines | None = None  # the lines of its CSV; None: it has no CSV
    table: str = "rows"             # the attribute of its result that Report.rows lists
    comparable: bool = False        # whether `tfgraphs report A B` compares two of its documents
    progress: bool = False          # whether it reports progress while its workers run (--quiet silences it)

    @property
    def document(self):
        """How its results are saved."""
        return DOCUMENTS[self.name]

    def options(self):
        """The options beside its Config's: those declared for it, else every running option, less --csv without CSV
        lines and --plot without a figure."""
        if self.beside is not None:
            return self.beside
        return (running(*(n for n in RUNNING if (n != "csv" or self.lines) and (n != "plot" or self.figure))),)

    def function(self):
        """Its API function: the declared keywords, each checked as the command line checks it, then its body."""
        def call(**options):
            return self.body(self, **options)
        call.__name__ = call.__qualname__ = self.name
        call.__doc__ = self.doc
        leading = {f.name: f.metadata["option"] for f in fields(self.config) if f.name in self.first}
        made = takes(leading, self.config, *self.options(), without=self.without, writes=self.writes,
                     named={"figure": self.shows, "lines": self.lines.each if self.lines else None})(call)
        made.__module__ = "tfgraphs"
        return made

    def measure(self, job, config, *, quiet=False, timeout=None, force=False, fresh_workers=False, json=None,
                csv=None, plot=None, **options):
        """Run the plan of job (its own, or one its body chose) with progress; the Report, with its JSON, CSV and
        plot written where asked.

        The caller (an API function made by takes()) has checked every option and output before building config.
        """
        if timeout is None and getattr(config, "target", ""):
            # A server that accepts the connection and never answers would hang a remote run: it gets a deadline.
            timeout = REMOTE_TIMEOUT_S
        plan = job.plan(config)
        said = plan.notices if plan.runnable else plan.notices[:-1]
        for notice in said:
            print(f"tfgraphs: refusing {notice}", file=sys.stderr)
        if not plan.runnable:
            # Every row was refused: the last refusal is the error, so each one is still one line.
            raise UsageError(f"refusing {plan.notices[-1]}" if plan.notices else "nothing to run")
        # A server that imported TensorFlow stays beside the workers it forks.
        check_memory(plan, force, beside=0 if fresh_workers else TF_BASELINE_BYTES)
        with children.workers(fork=not fresh_workers):
            found = Report(job.run(config, plan, progress(plan.workers, quiet), timeout=timeout, **options),
                           self, refused=plan.notices)
        found.write(json=json, csv=csv, plot=plot)
        return found


def _unembed_writes(options):
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
            SeedConfig, seed, compare.render, figure=plots.compare_figure,
            shows="time to the first result, by phase", lines=csv.TRIALS, comparable=True, progress=True),
    Command("explain", "what the first sess.run pays for: optimizer ablation, per-op traces",
            "Run each variant under session presets that switch graph optimizers off, trace the first and a later "
            "run of each, and split the first run's extra time into Grappler, classic constant folding and the rest.",
            "Run each variant, or the graph at `graph`, under presets that switch optimizers off, and trace its runs.",
            ExplainConfig, explain_job, explain_text.render, beside=explain.BESIDE, without=explain.WITHOUT,
            writes=explain.writes, body=explain.explained, figure=plots.explain_figure,
            shows="where the first run went", lines=csv.TRIALS, comparable=True, progress=True),
    Command("sweep", "graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit",
            "Measure each variant at each batch in a fresh worker, fit graph bytes = a*batch + b, predict the "
            "largest batch whose GraphDef serializes under 2 GiB, and ask TensorFlow to embed the next one (from a "
            "zero-stride array view).",
            "Measure each variant at each batch, fit graph bytes against batch and put the predicted limit to "
            "TensorFlow.", SweepConfig, sweep_job, sweep.render, without=UNSWEPT, first=("batches",),
            figure=plots.sweep_figure,
            shows="graph bytes and run time against batch", lines=csv.TRIALS, comparable=True, progress=True),
    Command("inspect", "what is inside a GraphDef or SavedModel file (nothing is run)",
            "Report a GraphDef's size, node count, op types, largest Const nodes and headroom to 2 GiB. The graph is "
            "only parsed: never imported or executed.",
            "Size, nodes, op types, largest Consts and headroom to 2 GiB of the graph at path; nothing is run.",
            inspect_job.Config, inspect_job, inspect_text.render, beside=(), writes=inspect.writes,
            body=inspect.inspected, table="largest_consts"),
    Command("unembed", "move a graph's large constants into variables loaded from a checkpoint",
            "Write PATH (a GraphDef or SavedModel) as a TF1 SavedModel in OUT in which every Const of at least "
            "--min-bytes is a non-trainable variable restored from the checkpoint. Load it with "
            "tf.compat.v1.saved_model.loader.load(sess, ['serve'], OUT). The input is never modified.",
            "Write the graph at path as a TF1 SavedModel in out, its Consts of min_bytes or more moved into "
            "variables.", unembed_job.Config, unembed_job, unembed.render,
            beside=(running("timeout", "fresh_workers", "quiet", "json"),), without=("trials", "presets"),
            writes=_unembed_writes, table="moved", progress=True),
    Command("shapes", "the cost of each new input length: retracing, kernel selection, fixed blocks",
            SHAPES,
            "Run each mode over many input lengths in fresh workers; switch_modes None: the default ones in modes.",
            ShapesConfig, shapes_job, shapes.render,
            beside=(running("timeout", "fresh_workers", "quiet", "json", "csv", "plot"),),
            figure=plots.shapes_figure, shows="time per call against input length", lines=csv.CALLS, table="rows",
            progress=True),
    Command("pitfalls", "the executor cache, a graph that grows in a loop, copies of X in saved files, "
                        "placeholder_with_default, what can be folded, what a run executes",
            PITFALLS, "Measure each lesson on each of its variants, every one in a fresh worker.",
            PitfallsConfig, pitfalls_job, pitfalls.render, figure=plots.pitfalls_figure,
            shows="the graph-growth steps (or the executor-cache runs)", lines=csv.CASES, progress=True),
    Command("watch", "run your own TF1 script unchanged and say, by its own line numbers, what its graph costs",
            WATCH,
            "Run the script in a fresh process, as `python SCRIPT ARGS` would, with TensorFlow's graph-mode calls "
            "watched.", watch_job.Config, watch_job, watch.render,
            beside=(running("quiet", "json", "csv", "plot"),), figure=plots.watch_figure,
            shows="each call site's runs, and the bytes of each large Const by its line", lines=csv.RUNS,
            table="calls", progress=True),
)}

# tfgraphs.compare() and the rest: one function per command.
FUNCTIONS = {c.name: c.function() for c in COMMANDS.values()}
