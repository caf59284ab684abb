"""What TensorFlow itself records of a run, as tfgraphs reads it: its log of a first run (which modules to ask for,
and the lines of it that are understood), the names its kernels run under, and the trace files a task writes."""

import os
import re
import time
from datetime import datetime

NETWORK_OPS = ("Conv2D", "AvgPool", "Relu")
# _MklNativeConv2D, _MklConv2D (oneDNN), _FusedConv2D (Grappler's remapper) are each a Conv2D that ran.
_RENAMED = r"_(?:Mkl|Native|Fused)+"
TRACED_RUNS = ("first", "second")   # the runs a traced task writes a Chrome trace of


def named(op, op_types):
    """'Conv2D', or 'Conv2D (as _MklNativeConv2D)' when the graph that ran holds op under other names: what ran."""
    renamed = sorted(t for t in op_types or () if t != op and runs_as(t, op))
    return f"{op} (as {', '.join(renamed)})" if renamed else op


def runs_as(kernel_type, op):
    """True when a node or kernel of this type computes `op`, under its own name or a oneDNN or fused one."""
    return kernel_type == op or re.fullmatch(_RENAMED + re.escape(op), kernel_type or "") is not None


def traced_writes(task, stem, board_name):
    """(the Chrome trace files, the TensorBoard folder or None) a task writes: STEM.first-run.trace.json and the
    second run's in its trace_dir, and the folder board_name in its tensorboard_dir, written whole."""
    traces = tuple(os.path.join(task.trace_dir, f"{stem}.{run}-run.trace.json") for run in TRACED_RUNS
                   ) if task.trace_dir else ()
    return traces, os.path.join(task.tensorboard_dir, board_name) if task.tensorboard_dir else None


# TensorFlow's log of a first run.

# VLOG(1) of Grappler's meta optimizer (one line per pass) and of both constant folders' source files; 2.12 matches
# a module by its exact basename, absl (2.16 and newer) by glob too.
PASSES = "meta_optimizer=1,constant_folding=1"
# ... and of the files whose lines bound the stages of a first run: the optimization passes before placement,
# placement, BuildGraph, partitioning, the executor's line per node with its step id, and the profiler a traced run
# starts. They log per node on every run, so only a worker that times no run beside its logged one asks for them.
VMODULE = PASSES + (",optimization_registry=1,placer=1,graph_execution_state=1,graph_partition=1,executor=1,"
                    "profiler_session=1")
ENV = {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": PASSES}
STAGES_ENV = {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": VMODULE}

# Both prefixes end in "<file>.cc:<line>] ": absl's (2.16 and newer) names the file alone, the older one its path.
_LINE = re.compile(r"(?:^|[\s/])(?P<path>(?:[\w.-]+/)*(?P<file>[\w.-]+\.cc)):(?P<line>\d+)\] (?P<message>.*)$")
# meta_optimizer.cc: "NAME: Graph size after: 5 nodes (0), 4 edges (0), time = 8.368ms."
_PASS = re.compile(r"^(?P<name>\S.*?): Graph size after: (?P<nodes>\d+) nodes \((?P<dnodes>-?\d+)\), "
                   r"(?P<edges>\d+) edges \((?P<dedges>-?\d+)\), time = (?P<ms>[0-9.eE+-]+) ?ms\.?$")
# common_runtime/constant_folding.cc: "Constant foldable 7 : 8", the node ids of the constant graph it built (a new
# Graph, its _SOURCE and _SINK among them) : of the graph it folds; or none found.
_FOLDABLE = re.compile(r"^Constant foldable (?P<foldable>\d+) : (?P<nodes>\d+)$")
_NONE_FOLDABLE = ("No constant foldable nodes found", "No constant nodes found that feed into the original graph.")
# ... and one line per tensor it did replace: "Replacing relu :: 0 with a constant".
_REPLACING = re.compile(r"^Replacing (?P<node>\S+) :: (?P<output>\d+) with a constant$")
_GRAPPLER_START = re.compile(r"^Starting optimization for grappler item: (?P<item>.+)$")
_GRAPPLED = re.compile(r"^Optimized \d+ functions")   # Grappler's last line of an item, after its function library

ASKED_FILES = ("meta_optimizer.cc", "constant_folding.cc", "optimization_registry.cc", "placer.cc",
               "graph_execution_state.cc", "graph_partition.cc", "executor.cc", "profiler_session.cc")

# Each line's time: absl's "I1202 08:24:08.404580" (month and day 0000 when its clock is unset, and then the seconds
# are since the epoch), the older "2026-12-02 08:24:08.404580: I"; both local time, to the microsecond.
_ABSL_STAMP = re.compile(r"^[IWEF](?P<month>\d\d)(?P<day>\d\d) (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d+\.\d+)\s")
_OLD_STAMP = re.compile(r"^(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d) (?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d\.\d+): ")
# The worker's own two lines around the logged run, on the same clock: "1796199536.123188 tfgraphs: session.run called".
CALLED, RETURNED = "tfgraphs: session.run called", "tfgraphs: session.run returned"
_MARK = re.compile(r"^(?P<epoch>\d+\.\d+) (?P<mark>tfgraphs: session\.run (?:called|returned))$")
# executor.cc: "Process node: 4 step -1 {{node conv}} = Conv2D[...]"; step -1 is LogMemory::CONSTANT_FOLDING_STEP_ID,
# the id GraphRunner gives the runs the classic constant folder makes.
_PROCESS = re.compile(r"^Process node: \d+ step (?P<step>-?\d+) ")
_PER_NODE = ("placer.cc", "executor.cc")   # files that log one line per node, in runs thinned to KEPT and the last
KEPT = 64
_NODE_OP = re.compile(r"\{\{node [^}]+\}\} = (?P<op>[A-Za-z0-9_]+)[\[(]")


def pass_stage(name):
    """grappler/NAME, the TFG pipeline's argument list left out: tfg_optimizer{any(...)} is tfg_optimizer."""
    return "grappler/" + name.split("{", 1)[0]


def mark(name):
    """The worker's own line for fd 2 at the logged run's start or end (CALLED, RETURNED), with its time."""
    return f"{time.time():.6f} {name}\n"


def logged_lines(text):
    """The lines of stderr text from the files asked for, as TensorFlow printed them, and the worker's two marks; of
    each run of per-node lines (placement's, the executor's) the first KEPT and the last are kept: the first and last
    bound its span."""
    out, run = [], []
    for line in text.splitlines():
        m = _LINE.search(line)
        if not _MARK.match(line) and (not m or m.group("file") not in ASKED_FILES):
            continue
        if run and _per_node(run[-1]) != _per_node(line):
            out.extend(run[:KEPT] + run[KEPT:][-1:])
            run = []
        (run if _per_node(line) else out).append(line.rstrip())
    out.extend(run[:KEPT] + run[KEPT:][-1:])
    return out


def _per_node(line):
    """Which per-node run a line belongs to (its file and step), or None."""
    m = _LINE.search(line)
    if not m or m.group("file") not in _PER_NODE:
        return None
    p = _PROCESS.match(m.group("message").strip())
    return m.group("file"), p and p.group("step")


def processed(lines, step):
    """The op types the executor logged processing in step (-1: the classic folder's runs), as logged."""
    found = set()
    for line in lines:
        m = _LINE.search(line)
        p = m and m.group("file") == "executor.cc" and _PROCESS.match(m.group("message").strip())
        if p and int(p.group("step")) == step and _NODE_OP.search(line):
            found.add(_NODE_OP.search(line).group("op"))
    return found


def stamp(line):
    """The line's time in seconds since the epoch, or None for a line without one."""
    found = _MARK.match(line)
    if found:
        return float(found.group("epoch"))
    a, o = _ABSL_STAMP.match(line), _OLD_STAMP.match(line)
    if a and a.group("month") == "00":
        return float(a.group("s"))
    found = a or o
    if not found:
        return None
    year = int(o.group("year")) if o else datetime.now().year
    whole = datetime(year, int(found.group("month")), int(found.group("day")), int(found.group("h")),
                     int(found.group("m"))).timestamp()
    return whole + float(found.group("s"))


# Each stage of a logged first run lies between two lines, TensorFlow's own or the worker's marks, that end one piece
# of work and begin the next; the stage is named for the code between them. An event is such a line: its kind, and
# what the line is, as the pages name it.
LINES = {"called": "run called", "returned": "run returned", "passes": "pass group {step} starts",
         "grouped": "pass group {step} finished", "placed": "last placed", "buildgraph": "BuildGraph",
         "grappler": "Grappler starts", "grappled": "Optimized N functions", "partitioned": "Added send/recv",
         "searched": "folder's count", "replaced": "folder's Replacing", "first": "step {step} first node",
         "last": "step {step} last node", "profiler": "profiler starts", "teardown": "profiler tear down"}
# The file each of those lines comes from (the marks are the worker's own).
LINE_FILES = {"passes": "optimization_registry.cc", "grouped": "optimization_registry.cc", "placed": "placer.cc",
              "buildgraph": "graph_execution_state.cc", "grappler": "meta_optimizer.cc",
              "grappled": "meta_optimizer.cc", "partitioned": "graph_partition.cc", "searched": "constant_folding.cc",
              "replaced": "constant_folding.cc", "first": "executor.cc", "last": "executor.cc",
              "profiler": "profiler_session.cc", "teardown": "profiler_session.cc"}
# optimization_registry.cc's RunGrouping logs each group's passes ("Running optimization phase", 2.12 first "Starting
# optimization of a group N") and then "Finished optimization of a group N", even for a group without passes; the
# groups (optimization_registry.h): 0 PRE_PLACEMENT and 1 POST_PLACEMENT in GraphExecutionState::InitBaseGraph around
# the Placer, 2 POST_REWRITE_FOR_EXEC in BuildGraph after Grappler and PruneGraph, 3 POST_PARTITIONING in
# DirectSession::CreateGraphs after the partitions are made Graphs.
_GROUP_START = re.compile(r"^(?:Starting optimization of a group (?P<group>\d+)|Running optimization phase -?\d+)$")
_GROUP_END = re.compile(r"^Finished optimization of a group (?P<group>\d+)$")
# (the line that opens a stage, the line that closes it): the stage, named for the code between the two lines.
# Python's session.run extends the session's graph (ExtendSession: groups 0 and 1, placement) and then, in
# TF_SessionRun_wrapper (tf_session_helper.cc), makes each fed array a tensor (NdarrayToTensor) before TF_SessionRun;
# DirectSession::Run's GetOrCreateExecutors then misses its cache and CreateGraphs calls BuildGraph, logged as it
# begins. meta_optimizer.cc logs "Optimized N functions" as Grappler's last line; OptimizeGraph then makes its output a
# Graph and BuildGraph prunes it to the feeds and fetches, runs group 2 and copies the result for the client graph.
# graph_partition.cc logs "Added send/recv" as Partition()'s last statement, after which CreateGraphs makes each
# partition a Graph and runs group 3, and CreateExecutors runs the classic GraphOptimizer, whose folder
# (common_runtime/constant_folding.cc) logs its count after its search and before its GraphRunner is made.
# GraphRunner::Run deep-copies what the folder's run computed; ReplaceTensorWithConstant logs "Replacing" once that
# copy is a Const's NodeDef, before the node is put in the graph; a graph that changed gets another round of the
# optimizer, folder and all. Then NewLocalExecutor makes the executor of the graph that runs.
CHECKED = "session.run's fetches and feeds checked"
# session.py checks each fed value only where the run fed one.
CHECKED_BY_FED = {True: CHECKED, False: "session.run's fetches checked",
                  None: "session.run's fetches and any feeds checked"}
HANDED = f"{CHECKED}, the graph handed to the session, made a Graph"
FEEDS = "the fed arrays made tensors, to BuildGraph"
# The same span where the run fed nothing, and where the document does not say whether it fed anything.
FEEDS_BY_FED = {True: FEEDS, False: "to BuildGraph", None: "any fed arrays made tensors, to BuildGraph"}
# CreateExecutors makes each partition's function library runtime before its GraphOptimizer runs; the folder logs
# its count once its search has made the constant graph (it prints that graph's node ids), or that it found none.
TO_COUNT = ("the function library runtime made, the classic optimizer to its folder's count (its search, and its "
            "constant graph where it found foldable nodes)")
FOLDER_RUN = "classic folder's run (step -1)"
# OptimizeGraph (graph_execution_state.cc) makes Grappler's item and a VirtualCluster before RunMetaOptimizer logs.
GRAPPLER_SET_UP = ("BuildGraph: Grappler's item made (the GraphDef, fetches, fake feeds), its virtual cluster, its "
                   "set-up")
EXECUTOR = "the executor of the graph that runs made"
# DirectSession::Run then sets the call frame's fed arguments and the run's state before the run's first line.
RUN_SET_UP = "the run set up"
_REST = f"the classic optimizer's rest, {EXECUTOR}, {RUN_SET_UP}"
_TO_RUN = {"grouped3": f"the classic optimizer, {EXECUTOR}, {RUN_SET_UP}",
           "partitioned": f"partitions made Graphs, post-partitioning passes, the classic optimizer, {EXECUTOR}, "
                          f"{RUN_SET_UP}",
           "searched": f"after the folder's count: {_REST}",
           # The span opens as the folder's last node starts (executor.cc logs a node as it begins).
           "last-1": f"the folder's last node and its run's end, GraphRunner's copy of its result, {_REST}",
           "replaced": f"the folded Const put in the graph, {_REST}"}
STAGES = {
    ("called", "passes0"): HANDED, ("called", "placed"): f"{HANDED}, pre-placement passes, placement",
    ("called", "buildgraph"): FEEDS,
    ("passes0", "grouped0"): "pre-placement passes", ("grouped0", "placed"): "placement",
    ("passes0", "placed"): "pre-placement passes, placement", ("placed", "passes1"): "the placer's end",
    ("passes1", "grouped1"): "post-placement passes", ("placed", "grouped1"): "the placer's end, post-placement passes",
    ("grouped1", "buildgraph"): f"back to Python, {FEEDS}",
    ("placed", "buildgraph"): f"post-placement passes, back to Python, {FEEDS}",
    ("buildgraph", "grappler"): GRAPPLER_SET_UP, ("grappler", "grappled"): "Grappler",
    ("buildgraph", "grappled"): "BuildGraph and Grappler",
    ("grappled", "passes2"): "Grappler's output made a Graph, pruned to the feeds and fetches",
    ("buildgraph", "passes2"): "BuildGraph without Grappler: the graph copied, pruned to the feeds and fetches",
    ("passes2", "grouped2"): "post-rewrite passes",
    ("grappled", "grouped2"): "Grappler's output made a Graph, pruned, post-rewrite passes",
    ("buildgraph", "grouped2"): "BuildGraph without Grappler: the graph copied, pruned, post-rewrite passes",
    ("grouped2", "partitioned"): "the client graph copied, partitioned",
    ("grappled", "partitioned"): "Grappler's output made a Graph, pruned, post-rewrite passes, partitioned",
    ("buildgraph", "partitioned"): "BuildGraph without Grappler, post-rewrite passes, partitioned",
    ("partitioned", "passes3"): "partitions made Graphs", ("passes3", "grouped3"): "post-partitioning passes",
    ("partitioned", "grouped3"): "partitions made Graphs, post-partitioning passes",
    ("grouped3", "searched"): TO_COUNT,
    ("partitioned", "searched"): f"partitions made Graphs, post-partitioning passes, {TO_COUNT}",
    # GraphRunner::Run copies the constant graph, rewrites it for its fetches, then makes its executor.
    ("searched", "first-1"): "the folder's GraphRunner: its graph copied, rewritten for its fetches, its executor made", ("first-1", "last-1"): FOLDER_RUN,
    ("last-1", "replaced"): "GraphRunner's copy of the folder's result, made a Const",
    ("replaced", "searched"): "the folded Const put in the graph, the classic optimizer's next round to its folder's "
                              "count",
    **{(a, b): name for a, name in _TO_RUN.items() for b in ("profiler", "first")},
    ("profiler", "first"): "the run's start", ("first", "last"): "the run (step {step})",
    ("last", "teardown"): "the run's end, its trace collected", ("teardown", "returned"): "return to Python",
    ("last", "returned"): "the run's end, return to Python",
}
_IN_RUN = {("first", "last"), ("first-1", "last-1"), ("last", "teardown"), ("last", "returned"),
           ("teardown", "returned")}
_LATEST = ("placed", "grappled", "replaced", "last")   # of a run of these, the last line is the event
_BEFORE_THE_RUN = ("passes", "grouped", "placed", "buildgraph", "grappler", "grappled", "partitioned", "searched",
                   "replaced")


def _registry_event(message):
    """(passes or grouped, its group or None) of an optimization_registry.cc line that opens or closes a group."""
    start, end = _GROUP_START.match(message), _GROUP_END.match(message)
    if end:
        return "grouped", int(end.group("group"))
    if start:
        return "passes", int(start.group("group")) if start.group("group") else None
    return None


def _folder_event(message):
    """(searched or replaced, None) of a line of the classic folder's that bounds a stage."""
    if _FOLDABLE.match(message) or message in _NONE_FOLDABLE:
        return "searched", None
    return ("replaced", None) if _REPLACING.match(message) else None


def _event(line):
    """(kind, step or None) of a line that bounds a stage, or None."""
    if _MARK.match(line):
        return ("called" if _MARK.match(line).group("mark") == CALLED else "returned"), None
    m = _LINE.search(line)
    if not m:
        return None
    file, message = m.group("file"), m.group("message").strip()
    p = _PROCESS.match(message) if file == "executor.cc" else None
    if p:
        return "first", int(p.group("step"))
    if file == "optimization_registry.cc":
        return _registry_event(message)
    if file == "constant_folding.cc":
        return None if "grappler" in m.group("path") else _folder_event(message)
    kind = {"placer.cc": "placed",
            "graph_execution_state.cc": "buildgraph" if message == "BuildGraph" else None,
            "meta_optimizer.cc": "grappler" if _GRAPPLER_START.match(message) else
            "grappled" if _GRAPPLED.match(message) else None,
            "graph_partition.cc": "partitioned" if message.startswith("Added send/recv") else None,
            "profiler_session.cc": {"Profiler session initializing.": "profiler",
                                    "Profiler session tear down.": "teardown"}.get(message)}.get(file)
    return (kind, None) if kind else None


def marked(lines):
    """True when the worker marked both ends of the logged run: older documents' logs were not."""
    found = {m.group("mark") for m in map(_MARK.match, lines) if m}
    return found == {CALLED, RETURNED}


def events(lines):
    """[(kind, step, time)] of the lines that bound a logged first run's stages, in order; a run of like lines is one
    event (of placement's and Grappler's, the last line; of an executor step's, its first and its last; of a pass
    group's, its first, numbered by the group's closing line), and once the run's own step has begun, only the
    executor's, the profiler's and the return mark are."""
    out = []
    for line in lines:
        found, at = _event(line), stamp(line)
        if found is None or at is None:
            continue
        kind, step = found
        began = any(k == "first" and s != -1 for k, s, _ in out)
        last = out[-1] if out else None
        if (began and kind in _BEFORE_THE_RUN) or (kind == "passes" and last and last[0] == "passes"):
            continue
        if kind == "grouped" and last and last[0] == "passes" and last[1] is None:
            out[-1] = ("passes", step, last[2])
        if kind == "first" and last and last[0] in ("first", "last") and last[1] == step:
            out[-1:] = [last, ("last", step, at)] if last[0] == "first" else [("last", step, at)]
        elif last and last[0] == kind and last[1] == step:
            if kind in _LATEST:
                out[-1] = (kind, step, at)
        else:
            out.append((kind, step, at))
    return out


def _key(kind, step):
    """The event as STAGES names it: step -1's executor lines apart, and each pass group by its number."""
    if kind in ("passes", "grouped") and step is not None:
        return f"{kind}{step}"
    return f"{kind}-1" if step == -1 else kind


def _line(kind, step):
    """What the event's line is, as the pages name it; a pass group's unnumbered when its closing line is missing."""
    return "a pass group starts" if kind == "passes" and step is None else LINES[kind].format(step=step)


def spans(lines, fed_bytes=None):
    """[{stage, source, to, seconds, own}] of a logged first run in order: each stage from one bounding line to the
    next (events), named for the code between them (STAGES), else for the two lines; own is True when both are
    TensorFlow's; fed_bytes, what the run fed (None: not recorded). [] when no line of TensorFlow's bounds a stage."""
    fed = None if fed_bytes is None else fed_bytes > 0
    found = events(lines)
    if all(kind in ("called", "returned") for kind, _, _ in found):
        return []
    out, run = [], next((s for k, s, _ in found if k == "first" and s != -1), None)
    for i, ((a, sa, ta), (b, sb, tb)) in enumerate(zip(found, found[1:])):
        step = sa if a in ("first", "last") else sb
        key = (_key(a, sa), _key(b, sb))
        # Once the run's own step has begun, other steps (a dataset's functions, their folder) interleave with it:
        # only a step's own span and the run's end are named for their code there.
        inside = any(k == "first" and s == run for k, s, _ in found[:i + 1])
        name = STAGES.get(key) if not inside or (key in _IN_RUN and sa in (run, -1, None)) else None
        name = name and name.replace(FEEDS, FEEDS_BY_FED[fed]).replace(CHECKED, CHECKED_BY_FED[fed])
        opened, closed = _line(a, sa), _line(b, sb)
        out.append({"stage": name.format(step=step) if name else f"{opened} to {closed}",
                    "source": opened, "to": closed, "seconds": tb - ta,
                    "own": a not in ("called", "returned") and b not in ("called", "returned")})
    return out


def own_share(lines):
    """(seconds from TensorFlow's first bounding line to its last, seconds of the whole logged run), or None."""
    found = spans(lines)
    if not found:
        return None
    return sum(s["seconds"] for s in found if s["own"]), sum(s["seconds"] for s in found)


def stages(lines):
    """[{stage, seconds, source, ...}] of the lines understood, in the order logged; others are left out."""
    out, items = [], 0
    for line in lines:
        m = _LINE.search(line)
        if not m:
            continue
        source, message = f"{m.group('file')}:{m.group('line')}", m.group("message").strip()
        if m.group("file") == "meta_optimizer.cc":
            if _GRAPPLER_START.match(message):
                items += 1
            p = _PASS.match(message)
            if p:
                out.append({"stage": pass_stage(p.group("name")), "seconds": float(p.group("ms")) / 1000.0,
                            "source": source, "nodes_after": int(p.group("nodes")),
                            "nodes_change": int(p.group("dnodes")), "item": items})
        elif m.group("file") == "constant_folding.cc" and "grappler" not in m.group("path"):
            f = _FOLDABLE.match(message)
            if f:
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source,
                            "foldable": int(f.group("foldable")), "nodes": int(f.group("nodes"))})
            elif message == _NONE_FOLDABLE[0]:
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source, "foldable": 0})
            elif _REPLACING.match(message):
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source,
                            "replaced": _REPLACING.match(message).group("node")})
    return out
