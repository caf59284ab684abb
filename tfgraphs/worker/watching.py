"""Hooks on TensorFlow's sessions and tf.function recording, by the user's file and line, what a graph costs."""

import contextlib
import functools
import itertools
import sys
import threading
import time

from tfgraphs.worker.watchcalls import CallSites, describe, feed_name, run_signature
from tfgraphs.worker.watchframes import UserFrames
from tfgraphs.worker.watchgraphs import GraphOps

RUN_ARGS = ("fetches", "feed_dict", "options", "run_metadata")
MAKE_CALLABLE_ARGS = ("fetches", "feed_list", "accept_options")


def bind(names, args, kwargs):
    """{parameter name: value} of a call made with args and kwargs."""
    bound = dict(zip(names, args))
    bound.update(kwargs)
    return bound


def one_line(exc):
    """An exception as one line of text."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class Watch:
    """Records session calls and the ops they run on, while started; its own faults never reach the script."""

    def __init__(self, min_bytes=1 << 20, script=None):
        self.min_bytes = min_bytes
        self.frames = UserFrames(script)
        self.calls = CallSites(min_bytes)
        self.graphs = GraphOps(self.frames, min_bytes)
        self.runs = 0
        self.error = None
        self.patches = []
        self.functions = []
        self.callables = {}
        self.callable_serials = itertools.count()
        self.local = threading.local()
        self.lock = threading.RLock()

    def start(self):
        """Install the hooks (TensorFlow is imported if it is not yet)."""
        if self.patches:
            return self
        try:
            self._install_session_hooks()
        except Exception as exc:
            self.failed(exc)
            self.stop()
            return self
        try:
            self._install_function_hook()
        except (ImportError, AttributeError, KeyError):
            pass  # this TensorFlow has no tf.function to count traces of
        return self

    def stop(self):
        """Put back everything start() replaced."""
        while self.patches:
            owner, name, original = self.patches.pop()
            setattr(owner, name, original)

    def _patch(self, owner, name, make_replacement):
        """Replace owner.name by make_replacement(original), remembering the original."""
        original = owner.__dict__[name]
        setattr(owner, name, make_replacement(original))
        self.patches.append((owner, name, original))

    def _install_session_hooks(self):
        """Hook Session.run, make_callable and the callables of _make_callable_from_options."""
        from tensorflow.python.client import session

        # The tensorflow package deletes its `python` attribute; the module itself stays in sys.modules.
        self.frames.add_tensorflow(sys.modules["tensorflow.python"])
        base = session.BaseSession
        self._patch(base, "run", self._hooked_run)
        self._patch(base, "make_callable", self._hooked_make_callable)
        self._patch(base, "_make_callable_from_options", self._hooked_callable_from_options)
        self._patch(base._Callable, "__call__", self._hooked_callable_call)

    def _install_function_hook(self):
        """Remember each tf.function made, with the line that made it."""
        from tensorflow.python.eager.polymorphic_function import polymorphic_function

        module_file = polymorphic_function.__file__
        watch = self

        def make(original):
            @functools.wraps(original)
            def __init__(function, *args, **kwargs):
                original(function, *args, **kwargs)
                # Only Functions made by tf.function itself (its inner `decorated`), not TensorFlow's copies.
                caller = sys._getframe(1).f_code
                if caller.co_name == "decorated" and caller.co_filename == module_file:
                    watch.guard(watch._remember_function, function, sys._getframe(1))
            return __init__
        self._patch(polymorphic_function.Function, "__init__", make)

    def _remember_function(self, function, frame):
        """Note a tf.function made by the code running in frame."""
        self.functions.append((self.frames.of_stack(frame), function))

    def guard(self, work, *args, after_failure=False):
        """work(*args) under the lock; a fault in it marks the watch failed and stops its bookkeeping."""
        if self.error is not None and not after_failure:
            return None
        try:
            with self.lock:
                return work(*args)
        except Exception as exc:
            self.failed(exc)
            return None

    def failed(self, exc):
        """Keep the first fault of the hooks, as one line."""
        if self.error is None:
            self.error = one_line(exc)

    def busy(self):
        """True inside a session call this thread already records (TensorFlow calling itself)."""
        return getattr(self.local, "depth", 0) > 0

    def timed(self, before, call, *args, **kwargs):
        """call(*args, **kwargs), timed alone, then recorded with what before() noted."""
        self.local.depth = getattr(self.local, "depth", 0) + 1
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - start
            self.local.depth -= 1
            if before is not None:
                self.guard(self._after, before, seconds)

    def _before(self, session, kind, signature, feed_pairs):
        """Note a call about to run session's graph: its user line, the graph's new ops, the arrays fed."""
        where = self.frames.of_stack(sys._getframe(1))
        graph = session.graph
        state = self.graphs.state(graph)
        self.graphs.examine_all(self.runs)
        self.graphs.settle(state, session)
        run_index = self.runs
        self.runs += 1
        state.runs += 1
        return where, kind, signature, self.calls.examine_feeds(feed_pairs, graph), run_index

    def _after(self, before, seconds):
        """Record a finished call."""
        where, kind, signature, feeds, run_index = before
        self.calls.record(where, kind, signature, seconds, feeds, run_index)

    def _before_run(self, session, args, kwargs):
        """_before for a Session.run call."""
        bound = bind(RUN_ARGS, args, kwargs)
        feed_dict = bound.get("feed_dict") or {}
        signature = run_signature(bound.get("fetches"), feed_dict, bound.get("options"), bound.get("run_metadata"))
        return self._before(session, "run", signature, list(feed_dict.items()))

    def _hooked_run(self, original):
        """Session.run, recorded."""
        watch = self

        @functools.wraps(original)
        def run(session, *args, **kwargs):
            if watch.busy():
                return original(session, *args, **kwargs)
            before = watch.guard(watch._before_run, session, args, kwargs)
            return watch.timed(before, original, session, *args, **kwargs)
        return run

    def _callable_signature(self, fetches, feed_names):
        """The signature of a new callable object: each one is its own."""
        serial = next(self.callable_serials)
        return f"callable {serial}: fetches={describe(fetches)} feeds=[{', '.join(feed_names)}]"

    def _made_callable(self, session, args, kwargs):
        """(signature, feed list, session) of a callable make_callable(*args, **kwargs) made."""
        bound = bind(MAKE_CALLABLE_ARGS, args, kwargs)
        feed_list = list(bound.get("feed_list") or [])
        signature = self._callable_signature(bound.get("fetches"), [feed_name(f) for f in feed_list])
        return signature, feed_list, session

    def _hooked_make_callable(self, original):
        """Session.make_callable, whose callables are recorded as calls of the line calling them."""
        watch = self

        @functools.wraps(original)
        def make_callable(session, *args, **kwargs):
            made = original(session, *args, **kwargs)
            noted = watch.guard(watch._made_callable, session, args, kwargs)
            if noted is None:
                return made
            signature, feed_list, maker = noted

            def watched_callable(*call_args, **call_kwargs):
                if watch.busy():
                    return made(*call_args, **call_kwargs)
                before = watch.guard(watch._before, maker, "callable", signature, list(zip(feed_list, call_args)))
                return watch.timed(before, made, *call_args, **call_kwargs)
            return watched_callable
        return make_callable

    def _hooked_callable_from_options(self, original):
        """Session._make_callable_from_options, remembering each callable's signature and feed names."""
        watch = self

        @functools.wraps(original)
        def make_callable_from_options(session, callable_options):
            made = original(session, callable_options)
            watch.guard(watch._remember_callable, made, callable_options)
            return made
        return make_callable_from_options

    def _remember_callable(self, made, callable_options):
        """Note the signature and feeds of a callable made from CallableOptions."""
        feeds = list(callable_options.feed)
        fetches = list(callable_options.fetch) + list(callable_options.target)
        # Keyed by id, not by the object, so the callable is not kept alive; a new one at a reused id replaces it.
        self.callables[id(made)] = (self._callable_signature(fetches, feeds), feeds)

    def _before_callable_object(self, made, args):
        """_before for a call of a callable made from CallableOptions."""
        signature, feeds = self.callables.get(id(made)) or (f"callable ?{id(made)}", [])
        return self._before(made._session, "callable", signature, list(zip(feeds, args)))

    def _hooked_callable_call(self, original):
        """BaseSession._Callable.__call__, recorded."""
        watch = self

        @functools.wraps(original)
        def __call__(made, *args, **kwargs):
            if watch.busy():
                return original(made, *args, **kwargs)
            before = watch.guard(watch._before_callable_object, made, args)
            return watch.timed(before, original, made, *args, **kwargs)
        return __call__

    def _examine_end(self):
        """Examine the ops made since the last call, in every graph seen and the default graph."""
        ops = sys.modules.get("tensorflow.python.framework.ops")
        if ops is not None:
            self.graphs.state(ops.get_default_graph())
        self.graphs.examine_all(self.runs)
        self.graphs.settle_all()

    def _functions_list(self):
        """The functions entries: each tf.function made and how often TensorFlow traced it."""
        out = [{"file": f, "line": line, "name": function.name, "traces": traces_of(function)}
               for (f, line), function in self.functions]
        return sorted(out, key=lambda e: (e["file"], e["line"], e["name"]))

    def document(self):
        """The observations so far, as the JSON-ready dict of the watch document."""
        self.guard(self._examine_end)
        lists = {"calls": self.calls.calls_list, "consts": self.graphs.consts_list,
                 "growth": self.graphs.growth_list, "feeds": self.calls.feeds_list, "functions": self._functions_list}
        made = {key: self.guard(build, after_failure=True) for key, build in lists.items()}
        imported = sys.modules.get("tensorflow")   # the script's tensorflow, or tf.compat.v1 under --tf1
        return {"status": "ok" if self.error is None else "failed", "error": self.error,
                "tf_version": getattr(imported, "__version__", None), "touched_tensorflow": imported is not None,
                "runs": self.runs, "graph_ops": self.graphs.ops, **{key: value or [] for key, value in made.items()}}


def traces_of(function):
    """TensorFlow's trace count of a tf.function, with those of the copies it made for each instance of a class
    whose method it decorates (Function.__get__ keeps them in _descriptor_cache)."""
    copies = list(getattr(function, "_descriptor_cache", {}).values())
    return function.experimental_get_tracing_count() + sum(
        c.experimental_get_tracing_count() for c in copies if hasattr(c, "experimental_get_tracing_count"))


@contextlib.contextmanager
def watching(min_bytes=1 << 20, script=None):
    """A started Watch for the body of a with statement, stopped after it."""
    watch = Watch(min_bytes, script).start()
    try:
        yield watch
    finally:
        watch.stop()
