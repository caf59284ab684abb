"""watch's answer block: how the script ended, then what its graph cost, line by line, or that nothing was found."""

import os
import signal

from tfgraphs.findings.evidence import rests_on
from tfgraphs.findings.watch import SAID, where

SHOWN = 4   # diagnoses in the answer; the rest are in the findings
SMALL = 0.01   # a timed diagnosis costing less than this share of the script's run time stays out of the answer


def answer(w):
    """At most six lines: the ending, up to four diagnoses, and what was not found when nothing was."""
    said = [_ending(w)]
    if w.status != "ok":
        return said + [f"The hooks could not watch it: {w.error}."]
    if w.graph_ops and not (w.runs or w.functions):
        return said + [f"It built a graph of {w.graph_ops:,} op{'s' if w.graph_ops != 1 else ''} and ran no session "
                       f"and no tf.function: nothing ran, so there were no runs to time." + _consts_seen(w)]
    if not w.touched_tensorflow or not (w.runs or w.consts or w.growth or w.functions):
        return said + ["It never used TensorFlow's graph mode (no session run, no Const, no tf.function): nothing "
                       "to watch."]
    found = _found(w)
    return said + (found or [*_traced(w), _clean(w)])


def _consts_seen(w):
    """' Its Consts of N bytes or more: ...' for a graph never run, or ''."""
    if not w.consts:
        return ""
    return (f" Its Consts of {w.min_bytes:,} bytes or more: "
            + ", ".join(f"{c['name']} ({where(w, c['file'], c['line'])}, {c['bytes']:,} bytes)" for c in w.consts[:3])
            + ".")


def _ending(w):
    runs = (f"{w.runs} Session.run call{'s' if w.runs != 1 else ''} from {len(w.calls)} "
            f"line{'s' if len(w.calls) != 1 else ''}")
    if w.script is None:   # watching() in a notebook: no script, and nothing has ended
        return f"Watched in this process so far: {runs}."
    name = os.path.basename(w.script)
    if w.ended == "exit":
        how = "ran to its end" if w.exit_code == 0 else f"exited with status {w.exit_code}"
    else:
        how = {"raised": f"raised (exit status {w.exit_code})",
               "interrupted": f"was interrupted (exit status {w.exit_code}); what it did until then",
               "killed": f"was killed by {_signal_name(w.exit_code - 128)} (exit status {w.exit_code})"}.get(
                   w.ended, f"ended with status {w.exit_code}")
    return f"{name} {how}: {runs}."


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


@rests_on("findings")
def _found(w):
    """The first diagnoses that matter; past SHOWN, and for those timed under SMALL of the run, a last line says how
    many more the findings hold."""
    small = [d for d in w.findings if d["evidence"].get("share") is not None and d["evidence"]["share"] < SMALL]
    large = [d for d in w.findings if d not in small]
    shown = large if len(large) <= SHOWN and not small else large[:SHOWN - 1]
    said = [SAID[d["kind"]](w, d) for d in shown]
    rest = [d for d in large if d not in shown]
    if rest:
        said.append(f"And {len(rest)} more findings ({', '.join(sorted({d['kind'] for d in rest}))}): see below.")
    if small:
        said.append(f"{len(small)} smaller finding{'s' if len(small) != 1 else ''} "
                    f"({', '.join(sorted({d['kind'] for d in small}))}), each under {SMALL:.0%} of the script's run "
                    f"time: see below.")
    return said


@rests_on("functions")
def _traced(w):
    """TensorFlow's trace counts, in one line, when nothing else was found."""
    counts = ", ".join(f"{f['name']} ({where(w, f['file'], f['line'])}) {f['traces']} "
                       f"time{'s' if f['traces'] != 1 else ''}" for f in w.functions[:3])
    return [f"tf.functions traced, as TensorFlow counts: {counts}."]


def _clean(w):
    least = f"{w.min_bytes:,} bytes" if w.min_bytes else "--min-bytes"
    return (f"No finding: no Const of {least} or more that is mostly data, no line that kept making ops between one session's runs, no array of "
            f"{least} or more fed unchanged on every call, no call site paying new first runs, no retracing.")
