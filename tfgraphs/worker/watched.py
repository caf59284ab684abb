"""What the watch hooks saw, by the user's file and line: the user's own frame, each call site of Session.run and
session callables (timings, signatures, bytes fed, big arrays fed again), and the ops each graph gained since it was
last looked at (big constants, ops added after its first run)."""

import collections
import contextlib
import importlib
import itertools
import math
import os
import runpy
import statistics
import sys
import threading
import time
import weakref
import zlib


# The user's own frame: the innermost outside TensorFlow, tfgraphs, installed packages and the import machinery

UNKNOWN = ("<unknown>", 0)
# Creation stacks remembered by hash: the ops one line makes share a stack, and a walk costs ten lookups or so.
MAX_STACKS = 10000
# Folders whose files are never the user's: installed packages and the import system's pseudo-files.
PACKAGE_FOLDERS = ("site-packages", "dist-packages")
FROZEN = "<frozen "
# User frames kept of a call chain: from the line that made an op out to the loop that keeps calling it.
MAX_CHAIN = 8


def _folder(module_file):
    """The folder of a module file, with a trailing separator, real and absolute."""
    return os.path.dirname(os.path.realpath(module_file)) + os.sep


class UserFrames:
    """Decides, once per file name, whether a frame's file belongs to the user."""

    def __init__(self, script=None):
        self.script = os.path.abspath(script) if script else None
        self.verdicts = {}
        self.stacks = {}
        self.foreign_folders = [_folder(sys.modules["tfgraphs"].__file__), _folder(importlib.__file__)]
        self.foreign_files = {os.path.realpath(m.__file__) for m in (runpy, threading, contextlib)}

    def add_tensorflow(self, tensorflow_python_module):
        """Count the TensorFlow package (found from its tensorflow.python module) as not the user's."""
        folder = os.path.dirname(_folder(tensorflow_python_module.__file__).rstrip(os.sep)) + os.sep
        if folder not in self.foreign_folders:
            self.foreign_folders.append(folder)
            self.verdicts.clear()
            self.stacks.clear()

    def is_user(self, filename):
        """True when code in filename is the user's."""
        verdict = self.verdicts.get(filename)
        if verdict is None:
            verdict = self.verdicts[filename] = self._judge(filename)
        return verdict

    def _judge(self, filename):
        """The uncached verdict of is_user."""
        if not filename or filename.startswith(FROZEN):
            return False
        if self.script and filename == self.script:
            return True
        real = os.path.realpath(filename)
        if real in self.foreign_files or any(real.startswith(f) for f in self.foreign_folders):
            return False
        parts = real.split(os.sep)
        return not any(p in PACKAGE_FOLDERS for p in parts)

    def of_stack(self, frame):
        """(file, line) of the innermost user frame from a live frame outward, else UNKNOWN."""
        while frame is not None:
            code = frame.f_code
            if self.is_user(code.co_filename):
                return code.co_filename, frame.f_lineno
            frame = frame.f_back
        return UNKNOWN

    def chain_of_stack(self, frame):
        """((file, line, function), ...) of the user frames from a live frame outward, at most MAX_CHAIN."""
        chain = []
        while frame is not None and len(chain) < MAX_CHAIN:
            code = frame.f_code
            if self.is_user(code.co_filename):
                chain.append((code.co_filename, frame.f_lineno, code.co_name))
            frame = frame.f_back
        return tuple(chain)

    def chain_of_traceback(self, stack):
        """((file, line, function), ...) of the user frames of an op's creation stack, innermost first, at most
        MAX_CHAIN."""
        if stack is None:
            return ()
        chain = []
        for i in range(len(stack) - 1, -1, -1):
            frame = stack[i]
            if self.is_user(frame.filename):
                chain.append((frame.filename, frame.lineno, frame.name))
                if len(chain) == MAX_CHAIN:
                    break
        return tuple(chain)

    def of_traceback(self, stack):
        """(file, line) of the innermost user frame of an op's creation stack (outermost frame first)."""
        if stack is None:
            return UNKNOWN
        # Keyed by hash, never by the stack itself: a StackTrace must not outlive its op.
        key = (hash(stack), len(stack))
        known = self.stacks.get(key)
        if known is not None:
            index, where = known
            if index is None:
                return where
            frame = stack[index]
            if (frame.filename, frame.lineno) == where:
                return where
        index, where = self._walk(stack)
        if len(self.stacks) >= MAX_STACKS:
            self.stacks.clear()
        self.stacks[key] = (index, where)
        return where

    def _walk(self, stack):
        """(index, (file, line)) of the innermost user frame of stack, or (None, UNKNOWN)."""
        for i in range(len(stack) - 1, -1, -1):
            frame = stack[i]
            if self.is_user(frame.filename):
                return i, (frame.filename, frame.lineno)
        return None, UNKNOWN


# Per call site of Session.run and session callables

# Bytes of an array read to tell "unchanged": a fixed, evenly strided sample, never the whole array.
SAMPLE_BYTES = 64 * 1024
SAME_HOW = "same object, sampled bytes unchanged"


def describe(value):
    """A canonical text of a fetch structure: tensor and op names inside lists, tuples and dicts."""
    if isinstance(value, (str, bytes)):
        return repr(value)
    if isinstance(value, dict):
        parts = sorted(f"{describe(k)}: {describe(v)}" for k, v in value.items())
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    if isinstance(value, tuple):
        prefix = type(value).__name__ if hasattr(value, "_fields") else ""
        return prefix + "(" + ", ".join(describe(v) for v in value) + ")"
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else type(value).__name__


def feed_name(key):
    """The name of a feed key: the fed tensor's name, or the string given."""
    if isinstance(key, str):
        return key
    name = getattr(key, "name", None)
    return name if isinstance(name, str) else describe(key)


def names_in(value):
    """Every tensor or op name inside a fetch structure."""
    if isinstance(value, dict):
        return [n for v in value.values() for n in names_in(v)]
    if isinstance(value, (list, tuple)):
        return [n for v in value for n in names_in(v)]
    return [feed_name(value)]


def run_signature(fetches, feed_dict, options, run_metadata):
    """The names one Session.run call feeds and fetches, sorted: DirectSession keys its executors by these names
    (retrying with them sorted), so two calls with one signature share executors; options do not change it."""
    feeds = sorted(feed_name(k) for k in (feed_dict or {}))
    return f"fetches=[{', '.join(sorted(set(names_in(fetches))))}] feeds=[{', '.join(feeds)}]"


def fingerprint(array):
    """crc32 of an evenly strided sample of about SAMPLE_BYTES of array's elements."""
    if array.size == 0:
        return 0
    count = max(1, SAMPLE_BYTES // max(1, array.itemsize))
    step = -(-array.size // count)
    return zlib.crc32(array.flat[::step].tobytes())


def fed_dtype(key, graph):
    """The NumPy dtype of the tensor a feed key names (a Tensor, or its name in graph), or None."""
    try:
        tensor = graph.as_graph_element(key) if isinstance(key, str) and graph is not None else key
        return tensor.dtype.as_numpy_dtype
    except Exception:   # a key session.py reads otherwise (a nested structure, a sparse tensor): left uncounted
        return None


def handed(numpy, value, dtype):
    """The array session.py hands TensorFlow for value (np.asarray at the feed's dtype), or None where it does not."""
    if isinstance(value, numpy.ndarray) and dtype in (None, value.dtype):
        return value
    try:
        return numpy.asarray(value, dtype=dtype)
    except (TypeError, ValueError):
        return None


class FeedRecord:
    """One feed of one call site that was given a big array: how often, how often the first one again, and the time
    spent handing it to TensorFlow as session.py does."""

    def __init__(self, nbytes, key, given):
        self.bytes = nbytes
        self.first = key
        self.given = given
        self.calls = 0
        self.same_calls = 0
        self.convert_s = 0.0


class CallSite:
    """The calls made from one line, of one kind."""

    def __init__(self, first_run_index):
        self.first_run_index = first_run_index
        self.times = []
        self.signatures = {}
        self.signature_first_s = []
        self.feed_bytes = []
        self.feeds = {}
        self.sessions = set()
        self.session_first_s = []
        self.later_s = []
        self.repeat_s = []


class CallSites:
    """Every call site seen, keyed by (file, line, kind)."""

    def __init__(self, min_bytes):
        self.min_bytes = min_bytes
        self.sites = {}

    def examine_feeds(self, pairs, graph=None):
        """(bytes handed to TensorFlow, [(feed name, nbytes, sameness key, the type converted or None, seconds to
        convert, the array)] of the feeds of at least min_bytes): each value as session.py converts it, np.asarray at
        the fed tensor's dtype, whatever its type (list, scalar), timed."""
        numpy = sys.modules.get("numpy")
        if numpy is None:
            return 0, []
        total, big = 0, []
        for key, value in pairs:
            start = time.perf_counter()
            array = handed(numpy, value, fed_dtype(key, graph))
            seconds = time.perf_counter() - start
            if array is None:
                continue
            total += array.nbytes
            if array.nbytes >= self.min_bytes:
                # The value the script passed is what it repeats: a list converted anew is still the same list.
                same = (id(value), array.shape, array.dtype.str, fingerprint(array))
                given = None if array is value else type(value).__name__   # what session.py converted
                big.append((feed_name(key), array.nbytes, same, given, seconds))
        return total, big

    def record(self, where, kind, signature, seconds, feeds, run_index, session=None):
        """Add one call: where = (file, line), feeds as examine_feeds returned them, session = (its serial, whether
        this call is its first at this line, whether it repeats a set of names it ran here before)."""
        site = self.sites.get((*where, kind))
        if site is None:
            site = self.sites[(*where, kind)] = CallSite(run_index)
        serial, first_here, repeat = session or (None, not site.times, signature in site.signatures)
        site.times.append(seconds)
        if signature not in site.signatures:
            site.signatures[signature] = len(site.signatures)
            site.signature_first_s.append(seconds)
        site.sessions.add(serial)
        (site.session_first_s if first_here else site.later_s).append(seconds)
        if repeat:
            site.repeat_s.append(seconds)
        total, big = feeds
        site.feed_bytes.append(total)
        for name, nbytes, same, given, convert_s in big:
            record = site.feeds.get(name)
            if record is None:
                record = site.feeds[name] = FeedRecord(nbytes, same, given)
            record.calls += 1
            record.same_calls += same == record.first
            record.convert_s += convert_s

    def calls_list(self):
        """The calls entries, sorted by file, line and kind."""
        out = []
        for (file, line, kind), site in sorted(self.sites.items()):
            times = site.times
            out.append({"file": file, "line": line, "kind": kind, "n": len(times),
                        "signatures": len(site.signatures), "first_s": times[0],
                        "later_median_s": statistics.median(site.later_s) if site.later_s else None,
                        "feed_bytes_per_call": statistics.median_low(site.feed_bytes),
                        "times_s": list(times), "signature_first_s": list(site.signature_first_s),
                        "first_run_index": site.first_run_index, "sessions": len(site.sessions),
                        "session_first_s": list(site.session_first_s),
                        "repeat_median_s": statistics.median(site.repeat_s) if site.repeat_s else None})
        return out

    def feeds_list(self):
        """The feeds entries, sorted by file, line and feed name."""
        return [{"file": file, "line": line, "feed": name, "bytes": r.bytes, "calls": r.calls,
                 "same_calls": r.same_calls, "how": SAME_HOW, "convert_s": r.convert_s,
                 **({"converted_from": r.given} if r.given else {})}
                for (file, line, _kind), site in sorted(self.sites.items())
                for name, r in sorted(site.feeds.items())]


# The ops each watched graph gained since it was last looked at

# Per byte of tensor data a TensorProto stores at most 10 (a negative int8 as a varint); the rest of a Const's
# NodeDef is its name, device, attribute keys and shape, bounded here generously.
MAX_BYTES_PER_DATA_BYTE = 10
NODE_DEF_BASE_BYTES = 256
BYTES_PER_DIM = 12
# Op types by which ops made in a loop are named: what a tf.compat.v1.train.Saver makes, and what initializes a variable.
SAVER_TYPES = frozenset({"SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename", "SaveSlices", "RestoreSlice"})
INITIALIZER_TYPES = frozenset({"Assign", "AssignVariableOp"})
MAX_AFTER = 1000   # runs after new ops kept per growth entry
LARGE_NODE_DEF = 64 * 1024   # a Const's NodeDef this large is read by its size alone, never parsed


class GraphState:
    """One graph's scan position (a node id of its C graph), how many session calls have run it, by which sessions,
    and the ops made since its last run, not yet known to be growth."""

    serials = itertools.count()

    def __init__(self, graph, forget):
        self.serial = next(self.serials)
        self.ref = weakref.ref(graph, forget)
        self.next_position = 0
        self.runs = 0
        self.sessions = weakref.WeakKeyDictionary()   # session -> its runs of this graph
        self.pending = []                             # (where, op type) made since the graph's last run


class GraphOps:
    """New ops of every graph seen, examined only once each: the cost follows the ops created, not the graph."""

    def __init__(self, frames, min_bytes):
        self.frames = frames
        self.min_bytes = min_bytes
        self.states = {}
        self.consts = []
        self.growth = {}
        self.loops = {}   # the line that made ops -> its first (loop line, frames): for ops made after the last run
        self.ops = 0   # every op of every graph examined

    def state(self, graph):
        """The GraphState of graph, tracked from now on (weakly: a graph the script drops is not kept alive)."""
        key = id(graph)
        found = self.states.get(key)
        if found is None or found.ref() is not graph:
            found = self.states[key] = GraphState(graph, lambda _ref: self._forget(key, _ref))
        return found

    def _forget(self, key, ref):
        """Drop a dead graph's state, unless its id already names a new graph."""
        if key in self.states and self.states[key].ref is ref:
            del self.states[key]

    def examine_all(self, runs_so_far):
        """Examine the new ops of every tracked graph still alive."""
        for state in list(self.states.values()):
            graph = state.ref()
            if graph is not None:
                self.examine(graph, state, runs_so_far)

    def examine(self, graph, state, runs_so_far):
        """Examine the ops graph gained since the last look."""
        for op in self._new_ops(graph, state):
            self.ops += 1
            stack = op.traceback
            where = self.frames.of_traceback(stack)
            if op.type == "Const":
                entry = self._const(op, where, runs_so_far)
                if entry is not None:
                    self.consts.append(entry)
            if state.runs:
                state.pending.append((where, op.type, self.frames.chain_of_traceback(stack), cause_of(op)))

    def settle(self, state, session, run_chain=()):
        """Before session runs the graph (called from run_chain): the ops made since its last run are growth if this
        session ran it before, and the keys of the growth entries they joined are returned; made before a session's
        first run, they are what that session starts with, and no leak."""
        ran = state.sessions.get(session, 0)
        grown = set()
        if ran:
            for where, op_type, chain, cause in state.pending:
                grown.add(self._grew(where, op_type, (state.serial, state.runs), loop_of(chain, run_chain), cause))
        state.pending.clear()
        state.sessions[session] = ran + 1
        return grown

    def settle_all(self):
        """At the end: ops made after a graph's last run, by then run by some session, are growth."""
        for state in self.states.values():
            for where, op_type, chain, cause in state.pending:
                self._grew(where, op_type, (state.serial, state.runs), self.loops.get(where), cause)
            state.pending.clear()

    def ran_after(self, grown, where, seconds):
        """Note the run, at where, that came right after the growth entries grown got their ops."""
        for key in grown:
            entry = self.growth[key]
            entry["after_site"] = entry["after_site"] or where
            if len(entry["after_s"]) < MAX_AFTER:
                entry["after_s"].append(seconds)

    @staticmethod
    def _new_ops(graph, state):
        """The ops of graph past the scan position, in creation order, found through the C graph's node ids."""
        from tensorflow.python.client import pywrap_tf_session

        # Graph._nodes_by_id and get_operations() copy the whole graph on each access; this walk does not.
        while True:
            c_op, after = _next_operation(pywrap_tf_session, graph, state.next_position)
            if c_op is None:
                return
            state.next_position = after
            try:
                op = graph._get_operation_by_tf_operation(c_op)
            except KeyError:
                op = None  # made through the C API and not yet given a Python Operation
            if op is not None:
                yield op

    def _const(self, op, where, runs_so_far):
        """The consts entry of a Const op whose NodeDef holds at least min_bytes, else None."""
        out = op.outputs[0]
        dims = out.shape.as_list() if out.shape.rank is not None else None
        known = dims is not None and all(d is not None for d in dims)
        tensor_bytes = math.prod(dims) * out.dtype.size if known and out.dtype.size else None
        if tensor_bytes is not None:
            most = (tensor_bytes * MAX_BYTES_PER_DATA_BYTE + NODE_DEF_BASE_BYTES + BYTES_PER_DIM * len(dims)
                    + 2 * (len(op.name) + len(op.device)))
            if most < self.min_bytes:
                return None
        node_def_bytes = self._node_def_bytes(op)
        if node_def_bytes < self.min_bytes:
            return None
        return {"file": where[0], "line": where[1], "name": op.name, "bytes": node_def_bytes,
                "tensor_bytes": tensor_bytes, "data_bytes": _data_bytes(op, node_def_bytes, tensor_bytes),
                "dtype": out.dtype.name, "shape": dims, "runs_before": runs_so_far}

    @staticmethod
    def _node_def_bytes(op):
        """The size of op's serialized NodeDef, as the GraphDef holds it."""
        serialized = getattr(op, "_node_def", None)
        if isinstance(serialized, bytes):
            return len(serialized)
        return op.node_def.ByteSize()

    def _grew(self, where, op_type, epoch, loop, cause):
        """Count an op a line added after its graph's first run, keyed by that line and the loop's (loop = (its
        (file, line), the user frames from the op's line out to it)); epoch names the interval between two runs."""
        loop_where, via = loop if loop is not None else (where, ((*where, ""),))
        self.loops.setdefault(where, (loop_where, via))
        key = (where, loop_where)
        entry = self.growth.get(key)
        if entry is None:
            entry = self.growth[key] = {"ops": 0, "epochs": set(), "op_types": collections.Counter(),
                                        "causes": collections.Counter(), "via": via, "after_s": [],
                                        "after_site": None}
        entry["ops"] += 1
        entry["epochs"].add(epoch)
        entry["op_types"][op_type] += 1
        if cause:
            entry["causes"][cause] += 1
        return key

    def consts_list(self):
        """The consts entries, sorted by file, line and name."""
        return sorted(self.consts, key=lambda c: (c["file"], c["line"], c["name"]))

    def growth_list(self):
        """The growth entries, sorted by file and line: the line that made the ops, the loop's line that kept
        calling it, the user frames between, the runs right after the ops, and what the ops were."""
        return [{"file": f, "line": line, "ops": e["ops"], "runs": len(e["epochs"]),
                 "op_types": dict(sorted(e["op_types"].items())), "causes": dict(sorted(e["causes"].items())),
                 "loop": {"file": loop[0], "line": loop[1]},
                 "via": [{"file": v[0], "line": v[1]} for v in e["via"]], "after_s": list(e["after_s"]),
                 **({"after_site": {"file": e["after_site"][0], "line": e["after_site"][1]}}
                    if e["after_site"] else {})}
                for ((f, line), loop), e in sorted(self.growth.items())]


def _data_bytes(op, node_def_bytes, tensor_bytes):
    """The bytes of tensor data a Const's NodeDef stores: its tensor_content, else its repeated values, which
    make_tensor_proto keeps fewer of than the elements where one value is broadcast (tf.zeros of a small shape)."""
    # A NodeDef of 64 KiB or more and at least the tensor's bytes holds them: a broadcast value's NodeDef is small.
    if tensor_bytes is not None and node_def_bytes >= max(tensor_bytes, LARGE_NODE_DEF):
        return tensor_bytes
    value = op.get_attr("value")
    if value.tensor_content:
        return len(value.tensor_content)
    empty = type(value)(dtype=value.dtype, tensor_shape=value.tensor_shape, version_number=value.version_number)
    return value.ByteSize() - empty.ByteSize()


def loop_of(chain, run_chain):
    """((file, line), frames) of the loop's line: the frame of an op's creation chain (innermost first) in the
    function that also made the run after it, that is the line there that called toward the op, with the chain's
    frames up to it; None when no function is shared."""
    functions = {(f, name) for f, _line, name in run_chain}
    for i, (f, line, name) in enumerate(chain):
        if (f, name) in functions:
            return (f, line), chain[:i + 1]
    return None


def cause_of(op):
    """What an op made after a run belongs to, by its type: a Saver's, a summary's, a Dataset's or an initializer
    (a NoOp grouping only variables' assignments, as global_variables_initializer makes), else None."""
    kind = op.type
    if kind in SAVER_TYPES:
        return "saver"
    if kind.endswith(("Summary", "SummaryV2")):
        return "summary"
    if "Dataset" in kind or "Iterator" in kind:
        return "dataset"
    # A Saver's restore_all also groups assignments: of what its RestoreV2 read, which an initializer's never are.
    if kind == "NoOp" and op.control_inputs and all(
            c.type in INITIALIZER_TYPES and not any(i.op.type in SAVER_TYPES for i in c.inputs)
            for c in op.control_inputs):
        return "initializer"
    return None


def _next_operation(pywrap_tf_session, graph, position):
    """(the C op after position, its position): TensorFlow 2.21 takes the Graph, earlier ones its C graph."""
    try:
        return pywrap_tf_session.TF_GraphNextOperation(graph, position)
    except TypeError:
        with graph._c_graph.get() as c_graph:   # a ScopedTFGraph, alive inside the with block
            return pywrap_tf_session.TF_GraphNextOperation(c_graph, position)
