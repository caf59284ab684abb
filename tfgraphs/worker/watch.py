"""Run a script as `python SCRIPT ARGS` would, with the watch hooks on, and write what they saw (see parse)."""

import argparse
import atexit
import builtins
import importlib.util
import io
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

from tfgraphs.worker.watching import Watch

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
        print_user_traceback(exc)
        return INTERRUPTED, "interrupted"
    except BaseException as exc:
        print_user_traceback(exc)
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
            "script_s": script_s, **{key: seen[key] for key in ("calls", "consts", "growth", "feeds", "functions")}}


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
