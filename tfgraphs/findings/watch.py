"""What a watched script tells a reader, declared as data: how it ended, a sentence per diagnosis, each tied to the
script's file and line, and each call site's first run; the headline ones open the page."""

import os
import signal

from tfgraphs.findings.evidence import Finding, Record, judged, said_by
from tfgraphs.records.judge import Verdict
from tfgraphs.units import fmt_bytes, fmt_s, shape_text, sig3


def where(w, file, line):
    """file:line, the file named as the script is when it is the script, else by its path."""
    same = w.script and os.path.abspath(file) == os.path.abspath(w.script)
    return f"{os.path.basename(file) if same else file}:{line}"


def _embedded(w, d):
    e = d["evidence"]
    said = (f"{where(w, d['file'], d['line'])} embedded {e['bytes']:,} bytes ({fmt_bytes(e['bytes'])}) in the "
            f"graph: the NodeDef of the Const op named '{e['name']}' ({e['dtype']} {shape_text(e['shape'])})")
    nxt = e.get("next_call")
    if nxt is None:
        return said + "; no run followed it."
    later = (f", later runs {fmt_s(nxt['later_median_s'])} median (n={nxt['n'] - 1})" if nxt["later_median_s"]
             is not None else ", its only run")
    return said + (f"; the first run that came after it, {where(w, nxt['file'], nxt['line'])}, took "
                   f"{fmt_s(nxt['first_s'])}{later}.")


def _repeated(w, d):
    e = d["evidence"]
    what = (f"{e['converted_from']}, which session.py converted to a {e['bytes']:,}-byte array on each call "
            f"(np.asarray once, before the calls, would leave only the feed),"
            if e.get("converted_from") else f"{e['bytes']:,}-byte array")
    return (f"{where(w, d['file'], d['line'])} fed the same {what} to placeholder {e['feed']} "
            f"on all {e['calls']} calls ({e['how']}): fed on every call though unchanged (its cost per call was "
            f"not measured).")


def _growth(w, d):
    e = d["evidence"]
    kinds = ", ".join(f"{n} {t}" for t, n in sorted(e["op_types"].items(), key=lambda kv: -kv[1])[:3])
    return (f"{where(w, d['file'], d['line'])} made {e['ops']:,} ops after the session's first run, in the gaps "
            f"after {e['runs']} of its runs ({kinds}): the graph grows as the loop goes.")


def _signatures(w, d):
    e = d["evidence"]
    verdict = Verdict.from_dict(e["verdict"])
    firsts = ", ".join(sig3(t * 1e3) for t in e["new_first_s"])
    return judged(f"{where(w, d['file'], d['line'])} ran {e['signatures']} different sets of fed and fetched names; "
                  f"the new sets' first calls took {firsts} ms against {sig3(e['repeat_median_s'] * 1e3)} ms median "
                  f"for the {e['repeats']} repeats of a set used before: slower, {verdict.says()}" + _cost(w, e)
                  + ".", verdict)


def _cost(w, e):
    """'; together N ms beyond a repeat, P% of the script's T run' where the document has both."""
    if e.get("cost_s") is None:
        return ""
    share = "" if e.get("share") is None else f", {100 * e['share']:.1f}% of the script's {fmt_s(w.script_s)} run"
    return f"; together {fmt_s(e['cost_s'])} beyond a repeat{share}"


def _retracing(w, d):
    e = d["evidence"]
    return (f"{where(w, d['file'], d['line'])}: the tf.function {e['name']} defined here was traced "
            f"{e['traces']} times (TensorFlow's experimental_get_tracing_count).")


SHOWN = 4   # diagnoses in the answer; the rest are in the findings
SMALL = 0.01   # a timed diagnosis costing less than this share of the script's run time stays out of the answer
SAID = {"embedded-constant": _embedded, "repeated-feed": _repeated, "graph-growth": _growth,
        "new-signature": _signatures, "retracing": _retracing}


def said(w, d):
    """The diagnosis as one sentence, then its remedy and where the course teaches it."""
    sentence = SAID[d["kind"]](w, d)
    return judged(f"{sentence} Remedy: {d['remedy']}. Taught in {d['lesson']}.", *getattr(sentence, "verdicts", ()))


def _first_runs(w):
    """Each call site's first run against its later ones, as measured in the script."""
    return [f"{where(w, c['file'], c['line'])}: first run {fmt_s(c['first_s'])}, later runs "
            f"{fmt_s(c['later_median_s'])} median (n={c['n'] - 1})" + _sets(c) + "." for c in w.calls
            if c["later_median_s"]]


def _sets(c):
    """What the call site's later runs were, where it used more than one set of fed and fetched names."""
    if c["signatures"] <= 1:
        return ""
    if c["signatures"] == c["n"]:
        return (f"; each of its {c['n']} calls used a new set of fed and fetched names, so each was the first call "
                f"of its set, none a repeat")
    return f"; over {c['signatures']} sets of fed and fetched names, the new sets' first calls among them"


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


def _traced(w):
    """TensorFlow's trace counts, in one line, when nothing else was found."""
    counts = ", ".join(f"{f['name']} ({where(w, f['file'], f['line'])}) {f['traces']} "
                       f"time{'s' if f['traces'] != 1 else ''}" for f in w.functions[:3])
    return [f"tf.functions traced, as TensorFlow counts: {counts}."]


def _clean(w):
    least = f"{w.min_bytes:,} bytes" if w.min_bytes else "--min-bytes"
    return (f"No finding: no Const of {least} or more that is mostly data, no line that kept making ops between one "
            f"session's runs, no array of {least} or more fed unchanged on every call, no call site paying new first "
            f"runs, no retracing.")


def _built_only(w):
    """True when the script built a graph and ran nothing."""
    return w.status == "ok" and bool(w.graph_ops) and not (w.runs or w.functions)


def _no_graph_mode(w):
    """True when the script never used graph mode (and did not only build a graph)."""
    return (w.status == "ok" and not _built_only(w)
            and (not w.touched_tensorflow or not (w.runs or w.consts or w.growth or w.functions)))


def _watched(w):
    """True when the script used graph mode and was watched: its diagnoses, or that there are none, are the answer."""
    return w.status == "ok" and not _built_only(w) and not _no_graph_mode(w)


def _one(say):
    return lambda v: [say(v.record)]


def _diagnoses(v):
    return v.record.findings


def _diagnosis(kind, template, unless):
    """The finding said for each of the script's diagnoses of this kind, with its remedy and lesson."""
    return Finding(f"watch.{kind}", ("findings",), lambda v, d: v.record.status == "ok" and d["kind"] == kind,
                   lambda v, d: [said(v.record, d)], False,
                   template + " Remedy: {remedy}. Taught in {lesson}.", unless, per=_diagnoses)


DECLARED = (
    Finding("watch.ending", ("runs",), lambda v: True, _one(_ending), True,
            "{script} ran to its end / exited with status {n} / raised / was interrupted / was killed by {signal}: "
            "{n} Session.run calls from {n} lines. / Watched in this process so far: ...", ""),
    Finding("watch.not_watched", ("error",), lambda v: v.record.status != "ok",
            lambda v: [f"The hooks could not watch it: {v.record.error}."], True,
            "The hooks could not watch it: {error}.", "the hooks watched the script"),
    Finding("watch.built_only", ("graph_ops",), lambda v: _built_only(v.record),
            lambda v: [f"It built a graph of {v.record.graph_ops:,} op{'s' if v.record.graph_ops != 1 else ''} and "
                       f"ran no session and no tf.function: nothing ran, so there were no runs to time."
                       + _consts_seen(v.record)], True,
            "It built a graph of {n} ops and ran no session and no tf.function: nothing ran, so there were no runs "
            "to time. Its Consts of {bytes} bytes or more: ...", "the script ran a session or a tf.function"),
    Finding("watch.no_graph_mode", (), lambda v: _no_graph_mode(v.record),
            lambda v: ["It never used TensorFlow's graph mode (no session run, no Const, no tf.function): nothing to "
                       "watch."], True,
            "It never used TensorFlow's graph mode (no session run, no Const, no tf.function): nothing to watch.",
            "the script ran a session, made a large Const or a tf.function, or grew its graph"),
    Finding("watch.found", ("findings",), lambda v: _watched(v.record), lambda v: _found(v.record), True,
            "{the first diagnoses, one line each} / And {n} more findings ({kinds}): see below. / {n} smaller "
            "findings ({kinds}), each under 1% of the script's run time: see below.", "nothing was found"),
    Finding("watch.traced", ("functions",), lambda v: _watched(v.record) and not v.record.findings,
            lambda v: _traced(v.record), True,
            "tf.functions traced, as TensorFlow counts: {name} ({line}) {n} times, ...",
            "something was found, or no tf.function was traced"),
    Finding("watch.clean", (), lambda v: _watched(v.record) and not v.record.findings, _one(_clean), True,
            "No finding: no Const of {bytes} or more that is mostly data, no line that kept making ops between one "
            "session's runs, ...", "something was found, or the script did not use graph mode"),
    Finding("watch.failed", ("error",), lambda v: v.record.status != "ok",
            lambda v: [f"The hooks could not watch this script ({v.record.error}); it ran as it would have without "
                       f"them."], False,
            "The hooks could not watch this script ({error}); it ran as it would have without them.",
            "the hooks watched the script"),
    _diagnosis("embedded-constant", "{line} embedded {bytes} bytes ({bytes}) in the graph: the NodeDef of the Const "
               "op named '{name}' ({dtype} {shape}); the first run that came after it, {line}, took {time}, ...",
               "no Const of --min-bytes or more is mostly data"),
    _diagnosis("repeated-feed", "{line} fed the same {bytes}-byte array to placeholder {feed} on all {n} calls "
               "({how}): fed on every call though unchanged (its cost per call was not measured).",
               "no array of --min-bytes or more was fed unchanged on every call"),
    _diagnosis("graph-growth", "{line} made {n} ops after the session's first run, in the gaps after {n} of its "
               "runs ({op types}): the graph grows as the loop goes.",
               "no line kept making ops between one session's runs"),
    _diagnosis("new-signature", "{line} ran {n} different sets of fed and fetched names; the new sets' first calls "
               "took {ms} ms against {ms} ms median for the {n} repeats of a set used before: slower, {verdict}; "
               "together {time} beyond a repeat, ...", "no call site paid new first runs the judge tells apart"),
    _diagnosis("retracing", "{line}: the tf.function {name} defined here was traced {n} times (TensorFlow's "
               "experimental_get_tracing_count).", "no tf.function was traced more than once"),
    Finding("watch.first_runs", ("calls",),
            lambda v: v.record.status == "ok" and any(c["later_median_s"] for c in v.record.calls),
            lambda v: _first_runs(v.record), False,
            "{line}: first run {time}, later runs {time} median (n={n}); each of its {n} calls used a new set of fed "
            "and fetched names, ...", "no call site ran more than once"),
)


HEADLINE = tuple(f for f in DECLARED if f.headline)
FINDINGS = tuple(f for f in DECLARED if not f.headline)


def told(w):
    """(the answer, the findings): every declaration said over the watched run, split by headline."""
    return answer(w), sentences(w)


def answer(w):
    """At most six lines: the ending, up to four diagnoses, and what was not found when nothing was."""
    return said_by(HEADLINE, Record(w))


def sentences(w):
    """The diagnoses, then each call site's first run against its later runs."""
    return said_by(FINDINGS, Record(w))
