"""The watch: hooks on TensorFlow's sessions and tf.function recording, by the user's file and line, what a graph
costs; and `python -m tfgraphs.worker.watch --out DOC.json --min-bytes N -- SCRIPT ARGS`, which runs a script as
`python SCRIPT ARGS` would with the hooks on, and writes what they saw (see parse)."""

import argparse
import atexit
import builtins
import contextlib
import functools
import importlib.util
import io
import itertools
import json
import os
import runpy
import signal
import sys
import threading
import time
import traceback
import types
import zipfile

from tfgraphs.worker.sessions import Sessions
from tfgraphs.worker.watched import UNKNOWN, CallSites, GraphOps, UserFrames, describe, feed_name, run_signature

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
        self.sessions = Sessions()
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
        self._patch(base, "__init__", self._hooked_init)
        self._patch(base, "run", self._hooked_run)
        self._patch(base, "make_callable", self._hooked_make_callable)
        self._patch(base, "_make_callable_from_options", self._hooked_callable_from_options)
        self._patch(base._Callable, "__call__", self._hooked_callable_call)

    def _hooked_init(self, original):
        """BaseSession.__init__, timed, with the line that made the session."""
        watch = self

        @functools.wraps(original)
        def __init__(session, *args, **kwargs):
            start = time.perf_counter()
            original(session, *args, **kwargs)
            watch.guard(watch._made_session, session, sys._getframe(1), time.perf_counter() - start)
        return __init__

    def _made_session(self, session, frame, seconds):
        """Note a session made by the code running in frame, on its graph."""
        graph = self.graphs.state(session.graph)
        self.sessions.made_one(session, self.frames.of_stack(frame), graph.serial, seconds)

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
        chain = self.frames.chain_of_stack(sys._getframe(1))
        where = chain[0][:2] if chain else UNKNOWN
        graph = session.graph
        state = self.graphs.state(graph)
        self.graphs.examine_all(self.runs)
        grown = self.graphs.settle(state, session, chain)
        run_index = self.runs
        self.runs += 1
        state.runs += 1
        return (where, kind, signature, self.calls.examine_feeds(feed_pairs, graph), run_index,
                self.sessions.of(session, state.serial), grown)

    def _after(self, before, seconds):
        """Record a finished call."""
        where, kind, signature, feeds, run_index, session, grown = before
        ran = session.ran(where, kind, signature, seconds)
        self.calls.record(where, kind, signature, seconds, feeds, run_index, ran)
        self.graphs.ran_after(grown, where, seconds)

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
                 "growth": self.graphs.growth_list, "feeds": self.calls.feeds_list, "functions": self._functions_list,
                 "sessions": self.sessions.sessions_list}
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


# Running the script as `python SCRIPT ARGS` would, with the hooks on

INTERRUPTED = 130
# Leading traceback frames that are this runner's, not the script's.
OUR_FOLDER = os.path.dirname(os.path.dirname(os.path.realpath(__file__))) + os.sep
RUNPY_FILE = os.path.realpath(runpy.__file__)


def parse(argv):
    """Options from `--out DOC.json --min-bytes N [--tf1] -- SCRIPT [ARGS...]`, with script, args and their paths."""
    parser = argparse.ArgumentParser(prog="python -m tfgraphs.worker.watch")
    parser.add_argument("--out", required=True, help="where the JSON document goes")
    parser.add_argument("--min-bytes", type=int, required=True, help="smallest constant or feed worth naming")
    parser.add_argument("--tf1", action="store_true", help="run a TensorFlow 1.x script under tf.compat.v1")
    if "--" not in argv:
        parser.error("expected -- SCRIPT [ARGS...]")
    split = argv.index("--")
    options, rest = parser.parse_args(argv[:split]), argv[split + 1:]
    if not rest:
        parser.error("expected a script after --")
    options.script, options.args = rest[0], rest[1:]
    # Made absolute now: the script may change the working folder.
    options.script_path, options.out = os.path.abspath(options.script), os.path.abspath(options.out)
    options.pid = os.getpid()   # the one process that writes the document: a fork the script makes does not
    return options


class StartOnImport:
    """A one-shot sys.meta_path finder: once the tensorflow package has run its __init__, start the watch."""

    def __init__(self, watch):
        self.watch = watch

    def find_spec(self, name, path=None, target=None):
        """None (the other finders decide), having wrapped the loader of tensorflow to start the watch after it."""
        if name != "tensorflow":
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
            loader = spec.loader if spec is not None else None
            if loader is not None and hasattr(loader, "exec_module"):
                loader.exec_module = self._then_start(loader)
                return spec
        except Exception as exc:
            self.watch.failed(exc)
        return None

    def _then_start(self, loader):
        """loader's own exec_module, followed by starting the watch once it succeeded."""
        exec_module = loader.exec_module

        def exec_then_start(module):
            try:
                exec_module(module)
            finally:
                del loader.exec_module
            self.watch.start()
        return exec_then_start


def prepare_tf1(watch):
    """Import TensorFlow in TF1 graph mode and make `import tensorflow` give tf.compat.v1."""
    # Imported as the script's own import would: in the user's environment, printing what it prints.
    import tensorflow as tf
    from tensorflow.python.util import deprecation

    # Switching to v1 behaviour logs deprecation warnings the script did not cause.
    with deprecation.silence():
        tf.compat.v1.disable_v2_behavior()
    watch.start()
    sys.modules["tensorflow"] = tf.compat.v1


def run_script(options):
    """Run the script as __main__ with sys.argv and sys.path as `python SCRIPT ARGS` gives them."""
    path = options.script_path
    folder = os.path.dirname(os.path.realpath(path))
    # `python -m` put the working folder first; `python SCRIPT` puts the script's folder there instead.
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = folder
    else:
        sys.path.insert(0, folder)
    sys.argv = [options.script, *options.args]
    with io.open_code(path) as f:
        source = f.read()
    if source[:4] == importlib.util.MAGIC_NUMBER or zipfile.is_zipfile(path):
        runpy.run_path(path, run_name="__main__")   # compiled code or a zip: runpy reads them (argv[0] made absolute)
        return
    # Not runpy.run_path for source: it sets sys.argv[0] to the absolute path, and python keeps it as given.
    main = types.ModuleType("__main__")
    main.__file__, main.__builtins__ = path, builtins
    sys.modules["__main__"] = main   # kept after the script, as python keeps it for the exit handlers
    exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)


def is_ours(filename):
    """True for a file of tfgraphs or runpy."""
    real = os.path.realpath(filename)
    return real == RUNPY_FILE or real.startswith(OUR_FOLDER) or filename == "<frozen runpy>"


def print_user_traceback(exc):
    """Print exc as `python SCRIPT` would: no frame of this runner or of the watch's hooks, in it or its causes."""
    shown = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    for each in _chained(shown):
        each.stack = traceback.StackSummary.from_list([f for f in each.stack if not is_ours(f.filename)])
    print("".join(shown.format()), end="", file=sys.stderr)


def report_uncaught(exc):
    """Report exc as python reports an exception nothing caught: through sys.excepthook when the script set its own
    (the frames of this runner left out), else as print_user_traceback prints it."""
    hook = sys.excepthook
    if hook is sys.__excepthook__:
        print_user_traceback(exc)
        return
    tb = exc.__traceback__
    while tb is not None and is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    try:
        hook(type(exc), exc, tb)
    except BaseException as failed:   # python's own words when the hook itself fails (pythonrun.c)
        print("Error in sys.excepthook:", file=sys.stderr)
        failed.__context__ = None   # python shows the hook's failure alone, then the original
        print_user_traceback(failed)
        print("\nOriginal exception was:", file=sys.stderr)
        print_user_traceback(exc)


def _chained(shown, seen=None):
    """shown and every exception it was raised from or during, each once."""
    seen = set() if seen is None else seen
    if shown is None or id(shown) in seen:
        return []
    seen.add(id(shown))
    return [shown, *_chained(shown.__cause__, seen), *_chained(shown.__context__, seen)]


def exit_status(code):
    """The exit status Python gives SystemExit(code), printing a non-integer code as Python does."""
    if code is None:
        return 0
    if isinstance(code, int):
        # Python reads the code as a C long (ssize_t's size where tfgraphs runs); one past it exits as -1 does.
        return code & 0xFF if -sys.maxsize - 1 <= code <= sys.maxsize else 255
    print(code, file=sys.stderr)
    return 1


def outcome(work):
    """(exit status, how it ended) of work(), with a traceback printed as Python prints it."""
    try:
        work()
        return 0, "exit"
    except SystemExit as exc:
        return exit_status(exc.code), "exit"
    except KeyboardInterrupt as exc:
        report_uncaught(exc)
        return INTERRUPTED, "interrupted"
    except BaseException as exc:
        report_uncaught(exc)
        return 1, "raised"


def wait_for_threads():
    """Wait for the script's non-daemon threads, as the interpreter does before it exits."""
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()


def write_document(doc, path):
    """Write doc to path whole: to path.tmp first, then renamed over path."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def document(watch, options, code, ended, started=None):
    """The whole watch document; started = perf_counter() when the script began, for its run time."""
    seen = watch.document()
    script_s = None if started is None else time.perf_counter() - started
    return {"status": seen["status"], "error": seen["error"], "tf_version": seen["tf_version"],
            "script": options.script_path, "argv": [options.script, *options.args], "tf1": options.tf1,
            "min_bytes": options.min_bytes, "exit_code": code, "ended": ended,
            "touched_tensorflow": seen["touched_tensorflow"], "runs": seen["runs"], "graph_ops": seen["graph_ops"],
            "script_s": script_s,
            **{key: seen[key] for key in ("calls", "consts", "growth", "feeds", "functions", "sessions")}}


def finish(watch, options, code, ended, started=None):
    """Write the document, run the script's exit handlers, flush, and leave without TensorFlow's slow teardown."""
    # Nothing may cut the document short now: a late Ctrl-C is ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if os.getpid() == options.pid:   # a forked copy of the script ends as the script's fork would, saying nothing
            write_document(document(watch, options, code, ended, started), options.out)
    except Exception as exc:
        print(f"tfgraphs watch: cannot write {options.out}: {exc}", file=sys.stderr)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass  # a closed or broken stream: nothing more can be said on it
    os._exit(code)


def main(argv=None):
    """Run the script under the watch and exit with its status."""
    options = parse(sys.argv[1:] if argv is None else argv)
    watch = Watch(options.min_bytes, options.script_path)
    if not os.path.isfile(options.script_path):
        print(f"{sys.executable}: can't open file {options.script_path!r}: [Errno 2] No such file or directory",
              file=sys.stderr)
        finish(watch, options, 2, "raised")
    started = time.perf_counter()
    if options.tf1:
        code, ended = outcome(lambda: (prepare_tf1(watch), run_script(options)))
    else:
        sys.meta_path.insert(0, StartOnImport(watch))
        code, ended = outcome(lambda: run_script(options))
    if ended != "interrupted":
        waited = outcome(wait_for_threads)
        code, ended = (waited if waited[1] == "interrupted" else (code, ended))
    finish(watch, options, code, ended, started)


if __name__ == "__main__":
    main()
