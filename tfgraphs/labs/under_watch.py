"""Lab 7, whose judge runs the student's main() under `tfgraphs watch` itself, once a file: main() keeps the starter's
result, fetched from a Session.run, and watch names no embed, growth or feed. Nothing the check's child process
runs decides these checks: the judge starts watch, within the check's limit, and reads what it wrote."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from tfgraphs import processes
from tfgraphs.labs import confine, watched
from tfgraphs.labs.verdicts import hint, judged_by, observed

FEATURES, STEPS, EVAL_EVERY, LEARNING_RATE = 32, 30, 10, 0.1   # as in the starter, which main() must keep
# --min-bytes 100KiB: x (5.1 MB), x_val (1.3 MB) and y (160 kB) count, y_val (40 kB) does not.
MIN_BYTES = 100 * 1024
DRIVER = "_tfgraphs_lab7_main.py"
_WATCHED = {}   # (file, digest of its bytes) -> facts: one watch run serves every check of the same file


def _data():
    """The starter's make_data()."""
    rng = np.random.default_rng(0)
    true_w = rng.standard_normal(FEATURES)
    x = rng.standard_normal((20_000, FEATURES))
    y = x @ true_w + 0.1 * rng.standard_normal(len(x))
    x_val = rng.standard_normal((5_000, FEATURES))
    y_val = x_val @ true_w + 0.1 * rng.standard_normal(len(x_val))
    return x, y, x_val, y_val


def reference_loss():
    """The validation loss after STEPS steps of gradient descent on mean squared error from w = 0, in NumPy."""
    x, y, x_val, y_val = _data()
    w = np.zeros(FEATURES)
    for _ in range(STEPS):
        w = w - LEARNING_RATE * 2 * x.T @ (x @ w - y) / len(y)
    return float(np.mean((x_val @ w - y_val) ** 2))


def watched_main(path, left_s, limit_s=None):
    """What watch saw of main() in the file at path, stopped after left_s, what is left of the check's limit_s: run
    once per content of the file in this process, so a script that never ends is stopped once and every check says
    so."""
    with open(path, "rb") as f:
        key = (os.path.realpath(path), hashlib.sha256(f.read()).hexdigest())
    if key not in _WATCHED:
        _WATCHED[key] = _watch(path, left_s, left_s if limit_s is None else limit_s)
    return _WATCHED[key]


def watch_of(facts, seen):
    """A check's facts: what watch, started by the judge itself, saw of main() in the student's file."""
    return watched_main(seen.path, seen.left_s, seen.limit_s)


def _watch(path, left_s, limit_s):
    """`tfgraphs watch --json` of labs.watched calling main() in a copy of the file, both in a folder of their own."""
    # Their own folder: the one Python puts first on sys.path for the watched script holds nothing else.
    with tempfile.TemporaryDirectory(prefix="tfgraphs-lab7-") as folder:
        # A copy: watch takes no frame inside an installed package for the user's, and the shipped starter is one.
        script, driver = os.path.join(folder, os.path.basename(path)), os.path.join(folder, DRIVER)
        shutil.copyfile(path, script)
        shutil.copyfile(watched.__file__, driver)
        doc, out = os.path.join(folder, "watch.json"), os.path.join(folder, "main.json")
        failed = _run([sys.executable, "-m", "tfgraphs", "watch", "--quiet", "--json", doc, "--min-bytes",
                       str(MIN_BYTES), driver, script, out, os.path.dirname(os.path.abspath(path))], left_s, limit_s)
        if failed is None and not os.path.exists(doc):
            failed = "tfgraphs watch ended without writing what it saw"
        if failed is not None:
            return {"failed": failed}
        return _facts(_read(doc), _read(out) if os.path.exists(out) else {}, script)


def _run(argv, left_s, limit_s):
    """None once watch has ended by itself within left_s, else why it was stopped (the check's limit_s named); the
    watched script, and all it started, end with it."""
    proc = processes.start(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        proc.wait(left_s)
        return None
    except subprocess.TimeoutExpired:
        return f"main() did not finish within {limit_s:g} s under tfgraphs watch (a loop that never ends?); stopped"
    finally:
        if proc.poll() is None:   # ended here or interrupted: watch, the script and what it started end too
            confine.end_tree(proc.pid)
            proc.kill()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass


def _read(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _facts(doc, result, script):
    """The plain data the judges need: how the script ended, main()'s result, and each finding by its line."""
    mine = os.path.realpath(script)

    def where(file, line):
        return f"line {line}" if os.path.realpath(file) == mine else f"{os.path.basename(file)}:{line}"

    findings = [{"kind": f["kind"], "where": where(f["file"], f["line"]),
                 "evidence": {k: v for k, v in f["evidence"].items() if k != "next_call"}} for f in doc["findings"]]
    return {"exit_code": doc.get("exit_code"), "ended": doc.get("ended"), "status": doc.get("status"),
            "error": doc.get("error"), "runs": doc.get("runs") or 0, "findings": findings, **result}


ERROR_HINTS = (
    ("You must feed a value for placeholder", "A run reads a placeholder it was not fed: feed the data's "
     "placeholders once, to the initializer's run, and let the loss and the training step read the variables."),
    ("Graph is finalized", "An op is made after graph.finalize(): create every op, the validation loss too, before "
     "finalize() and the loop."),
    ("has no attribute 'main'", "Keep main(): the checker calls it and compares what it returns."),
)


def _ran(facts):
    if "failed" in facts:
        return False, facts["failed"], ""
    if facts.get("raised"):
        likely = next((h for text, h in ERROR_HINTS if text in facts["raised"]), "")
        return False, f"main() raised {facts['raised']} ({facts['where']})", likely
    if facts["exit_code"] != 0 or facts["ended"] != "exit":
        return False, f"the script ended with exit status {facts['exit_code']} ({facts['ended']})", ""
    return True, f"exit status 0 after {facts['runs']} Session.run calls", ""


@hint("Run `python lab7/starter.py`: main() must print the validation loss and end without an error.")
@judged_by(_ran)
@observed(watch_of)
def runs_to_its_end(mod):
    """main() runs to its end under tfgraphs watch, exit status 0"""
    return {"main": callable(mod.main)}   # the file's main(), which the judge runs under watch itself


RAN_FIRST = "Make main() run to its end first: the first check says why it did not."


def _complete(facts):
    """'' when watch saw main() to its end, else what it missed."""
    if facts["status"] != "ok":
        return f"watch could not see the script ({facts['error']})"
    if facts["exit_code"] != 0 or facts["ended"] != "exit":
        return f"main() did not run to its end (exit status {facts['exit_code']}): what it would do after is unseen"
    return ""


def _none_of(kind, describe, hint_for_found):
    """The judge of a check that watch finds no diagnosis of this kind in a complete run."""
    def verdict(facts):
        if "failed" in facts:
            return False, facts["failed"], ""
        found = [f for f in facts["findings"] if f["kind"] == kind]
        if found:
            more = f"; and {len(found) - 3} more" if len(found) > 3 else ""
            seen = "; ".join(f"{describe(f['evidence'])} ({f['where']})" for f in found[:3]) + more
            return False, seen, hint_for_found(found)
        missed = _complete(facts)
        if missed:
            return False, f"none, but {missed}", RAN_FIRST
        return True, f"none in {facts['runs']} Session.run calls", ""
    return verdict


def _const(e):
    shape = "x".join(map(str, e["shape"])) if e["shape"] is not None else "?"
    return f"Const {e['name']!r} of {e['bytes']:,} bytes ({e['dtype']} {shape}) in the graph"


def _embed_hint(found):
    names = [f["evidence"]["name"] for f in found]
    if any(n.endswith("initial_value") for n in names):
        return ("A tf.compat.v1.Variable made from the array keeps it in the graph as its initial value (the Const "
                "named .../initial_value): step 4 says what to give the Variable as initial value instead.")
    if any("component_" in n for n in names):
        return ("tf.data.Dataset.from_tensor_slices embeds the array it is given: load it once into a variable "
                "instead, as step 4 does.")
    return ("An array passed to tf.constant or straight to an op is stored in the graph (the seen line says where): "
            "load it once into a variable instead, as step 4 and lab 1's build_loaded do.")


def _growth(e):
    kinds = ", ".join(f"{n} {t}" for t, n in sorted(e["op_types"].items(), key=lambda kv: -kv[1])[:3])
    return f"{e['ops']:,} ops ({kinds}) made after the first run, during {e['runs']} runs"


def _growth_hint(found):
    return ("Ops are made after the session's first run, at the line the seen line names: step 5 says where they "
            "belong and how lab 6 turns the next such op into an error.")


def _feed(e):
    return f"the same {e['bytes']:,}-byte array fed to {e['feed']} on all {e['calls']} calls"


def _feed_hint(found):
    every_step = any(f["evidence"]["calls"] >= STEPS for f in found)
    return (("A placeholder fed on every training step, in place of the array in the graph, hands it to the runtime "
             "on every call instead: " if every_step else "Feeding the same array on every call hands it to the "
             "runtime each time: ") + "load it once into a variable, fed only to the initializer's run, as steps 4 "
            "and 6 do.")


@hint("Load every large array once into a variable (a placeholder as its initial value); embed none.")
@judged_by(_none_of("embedded-constant", _const, _embed_hint))
@observed(watch_of)
def embeds_no_array(mod):
    """watch names no embedded constant (a Const of 100 KiB or more)"""
    return {"main": callable(mod.main)}   # the file's main(), which the judge runs under watch itself


@hint("Create every op once, before the loop, and finalize the graph.")
@judged_by(_none_of("graph-growth", _growth, _growth_hint))
@observed(watch_of)
def graph_does_not_grow(mod):
    """watch names no graph growth (ops made after the first run, on 2 or more runs)"""
    return {"main": callable(mod.main)}   # the file's main(), which the judge runs under watch itself


@hint("Feed a large array at most once, to a variable's initializer.")
@judged_by(_none_of("repeated-feed", _feed, _feed_hint))
@observed(watch_of)
def feeds_no_array_again(mod):
    """watch names no repeated feed (the same array of 100 KiB or more fed on every call)"""
    return {"main": callable(mod.main)}   # the file's main(), which the judge runs under watch itself


RESULT_HINT = ("Keep make_data(), STEPS, EVAL_EVERY, LEARNING_RATE and the loss as the starter has them. A variable "
               "that holds the data must not be trainable: minimize() trains every trainable variable, the data too.")


def _same_result(facts):
    if "failed" in facts:
        return False, facts["failed"], ""
    got = facts.get("returned")
    if got is None:
        seen = (f"main() raised {facts['raised']} ({facts['where']})" if facts.get("raised") else
                f"main() returned {facts['returned_repr']}" if "returned_repr" in facts else
                f"main() did not return (exit status {facts['exit_code']})")
        return False, seen, (RAN_FIRST if facts.get("raised") else
                             "main() must return the validation loss after the last step, as the starter's does.")
    if not facts["runs"]:
        return False, f"main() returned {got:.6g} without a Session.run", (
            "Keep the training in the TF1 graph and its session: watch judges what the graph costs.")
    if got not in facts.get("fetched", ()):
        return False, f"main() returned {got:.6g}, which none of its {facts['runs']} Session.run calls fetched", (
            "Return the validation loss as the session's run gives it: the graph computes it, not NumPy.")
    want = reference_loss()
    err = abs(got - want) / abs(want)
    ok = err < 1e-6   # relative: TensorFlow's reductions add in another order than NumPy's
    return ok, f"main() returned {got:.6g}; the starter's training gives {want:.6g} (relative difference " \
               f"{err:.1e})", "" if ok else RESULT_HINT


@hint(RESULT_HINT)
@judged_by(_same_result)
@observed(watch_of)
def returns_the_starters_loss(mod):
    """main() returns the starter's validation loss, as NumPy's gradient descent gives it"""
    return {"main": callable(mod.main)}   # the file's main(), which the judge runs under watch itself


LAB7 = (runs_to_its_end, embeds_no_array, graph_does_not_grow, feeds_no_array_again, returns_the_starters_loss)


CHECKS = {7: LAB7}
