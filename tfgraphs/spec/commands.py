"""Every command of tfgraphs, one entry each, and the only list of them: what it does, how its document keeps its
results, and which layers implement it. A layer finds its part of a command by the command's name: the module
tfgraphs/LAYER/NAME.py, as `ls tfgraphs/*/compare.py` lists compare's."""

from dataclasses import dataclass

# Layers a command may have a module in, in the order a run goes through them.
LAYERS = ("cli", "api", "jobs", "findings", "render")


@dataclass(frozen=True)
class Command:
    """One command: its name and help line, the layers with a module named after it, and how its results are kept,
    shown and compared."""

    name: str
    summary: str
    parts: tuple = LAYERS           # the layers with a module tfgraphs/LAYER/NAME.py
    rows: str | None = None         # the document key its rows are kept under; None: one record, or no document
    record: str | None = None       # its record type, as MODULE.CLASS under tfgraphs.records; None: no document
    table: str = "rows"             # the attribute of its result that Report.rows lists
    lines: str | None = None        # its CSV: a line per "trial", "call", "case" or "run"; None: it has no CSV
    figure: str | None = None       # what its figure shows, as its answer names it; None: it has no figure
    comparable: bool = False        # whether `tfgraphs report A B` compares two of its documents
    progress: bool = False          # whether it reports progress while its workers run (--quiet silences it)


COMMANDS = {c.name: c for c in (
    Command("compare", "the seed network fed four ways, each phase measured in a fresh worker",
            rows="variants", record="rows.Row", lines="trial", figure="time to the first result, by phase",
            comparable=True, progress=True),
    Command("explain", "what the first sess.run pays for: optimizer ablation, per-op traces",
            rows="runs", record="rows.Row", lines="trial", figure="where the first run went",
            comparable=True, progress=True),
    Command("sweep", "graph size, time and memory against batch, fitted up to the 2 GiB serialized-GraphDef limit",
            rows="rows", record="rows.Row", lines="trial", figure="graph bytes and run time against batch",
            comparable=True, progress=True),
    Command("inspect", "what is inside a GraphDef or SavedModel file (nothing is run)",
            record="inspect.Inspection", table="largest_consts"),
    Command("unembed", "move a graph's large constants into variables loaded from a checkpoint",
            record="unembed.Unembedding", table="moved", progress=True),
    Command("shapes", "the cost of each new input length: retracing, kernel selection, fixed blocks",
            rows="modes", record="rows.ModeRun", lines="call", figure="time per call against input length",
            progress=True),
    Command("pitfalls", "the executor cache, a graph that grows in a loop, copies of X in saved files, "
                        "placeholder_with_default, what can be folded, what a run executes",
            rows="lessons", record="pitfalls.LessonRun", lines="case",
            figure="the graph-growth steps (or the executor-cache runs)", progress=True),
    Command("watch", "run your own TF1 script unchanged and say, by its own line numbers, what its graph costs",
            record="watch.Watching", table="calls", lines="run",
            figure="each call site's runs, and the bytes of each large Const by its line", progress=True),
    Command("lab", "course labs: list them, start one, or check a solution", parts=("cli",)),
    Command("report", "re-render a saved JSON report, or compare two (no TensorFlow needed)", parts=("cli", "api")),
    Command("server", "start a TensorFlow gRPC server and print its target", parts=("cli",)),
)}


def documented():
    """The commands whose results are saved as a document, in their order."""
    return [c for c in COMMANDS.values() if c.record]
