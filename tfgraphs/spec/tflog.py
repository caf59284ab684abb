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
# ... and of the files whose first line opens each stage of a first run: placement, BuildGraph, partitioning, and the
# executor's line per node with its step id. They log per node on every run, so only a worker that times no run
# beside its logged one asks for them.
VMODULE = PASSES + ",placer=1,graph_execution_state=1,graph_partition=1,executor=1"
ENV = {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": PASSES}
STAGES_ENV = {"TF_CPP_MIN_LOG_LEVEL": "0", "TF_CPP_VMODULE": VMODULE}

# Both prefixes end in "<file>.cc:<line>] ": absl's (2.16 and newer) names the file alone, the older one its path.
_LINE = re.compile(r"(?:^|[\s/])(?P<path>(?:[\w.-]+/)*(?P<file>[\w.-]+\.cc)):(?P<line>\d+)\] (?P<message>.*)$")
# meta_optimizer.cc: "NAME: Graph size after: 5 nodes (0), 4 edges (0), time = 8.368ms."
_PASS = re.compile(r"^(?P<name>\S.*?): Graph size after: (?P<nodes>\d+) nodes \((?P<dnodes>-?\d+)\), "
                   r"(?P<edges>\d+) edges \((?P<dedges>-?\d+)\), time = (?P<ms>[0-9.eE+-]+) ?ms\.?$")
# common_runtime/constant_folding.cc: "Constant foldable 7 : 8" (foldable nodes : nodes), or none found.
_FOLDABLE = re.compile(r"^Constant foldable (?P<foldable>\d+) : (?P<nodes>\d+)$")
_NONE_FOLDABLE = "No constant foldable nodes found"
# ... and one line per tensor it did replace: "Replacing relu :: 0 with a constant".
_REPLACING = re.compile(r"^Replacing (?P<node>\S+) :: (?P<output>\d+) with a constant$")
_GRAPPLER_START = re.compile(r"^Starting optimization for grappler item: (?P<item>.+)$")

ASKED_FILES = ("meta_optimizer.cc", "constant_folding.cc", "placer.cc", "graph_execution_state.cc",
               "graph_partition.cc", "executor.cc")

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
HANDED = "graph handed over"
PLACED = "graph handed over, placed"
FOLDER_RUN = "classic folder's run (step -1)"
FOLDING = "classic folder's search"
_OPENED_BY = {"graph_partition.cc": "partitioning", "constant_folding.cc": FOLDING}
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


def _opens(line):
    """The stage a line opens, or None for a line inside one (or one this module does not read)."""
    if _MARK.match(line):
        return HANDED if _MARK.match(line).group("mark") == CALLED else RETURNED
    m = _LINE.search(line)
    message = m and m.group("message").strip()
    if not m:
        return None
    if m.group("file") == "graph_execution_state.cc":
        return "BuildGraph and Grappler" if message == "BuildGraph" else None
    if m.group("file") == "executor.cc":
        p = _PROCESS.match(message)
        return None if not p else FOLDER_RUN if p.group("step") == "-1" else f"the run (step {p.group('step')})"
    if m.group("file") == "constant_folding.cc" and not (_FOLDABLE.match(message) or message == _NONE_FOLDABLE):
        return None   # its "Replacing" lines, and Grappler's folder of the same basename: inside the stage they're in
    return _OPENED_BY.get(m.group("file"))


def marked(lines):
    """True when the worker marked both ends of the logged run: older documents' logs were not."""
    found = {m.group("mark") for m in map(_MARK.match, lines) if m}
    return found == {CALLED, RETURNED}


def spans(lines):
    """[{stage, source, seconds}] of a logged first run in order: each stage from the line that opens it to the line
    that opens the next, the last to the run's return mark (or the last line)."""
    out, last = [], None
    for line in lines:
        at, stage = stamp(line), _opens(line)
        if at is None:
            continue
        last = at
        if out and out[-1]["stage"] == HANDED and _LINE.search(line) and "placer.cc:" in line:
            out[-1]["stage"] = PLACED   # placement logs each node as it ends, inside the hand-over
        if stage in (None, RETURNED) or (out and out[-1]["stage"] == stage):
            continue
        source = "session.run" if stage == HANDED else _LINE.search(line).group("file").removesuffix(".cc")
        out.append({"stage": stage, "source": source, "start": at})
    if all(span["stage"] in (HANDED, PLACED) for span in out):
        return []   # no line of TensorFlow's opened a stage: its log was not read, so nothing is timed by it
    for span, after in zip(out, out[1:] + [{"start": last}]):
        span["seconds"] = after["start"] - span.pop("start")
    return out


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
            elif message == _NONE_FOLDABLE:
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source, "foldable": 0})
            elif _REPLACING.match(message):
                out.append({"stage": "classic/constant_folding", "seconds": None, "source": source,
                            "replaced": _REPLACING.match(message).group("node")})
    return out
