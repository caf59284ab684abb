"""What a watched script tells a reader: how it ended, a sentence per diagnosis, each tied to the script's file and
line, and each call site's first run; the headline findings open the page."""

import os
import signal
import statistics

from tfgraphs.findings.evidence import FINDINGS, Record, answer_then_findings, finding, judged
from tfgraphs.records.judge import Verdict
from tfgraphs.spec.owngraph import CAUSES
from tfgraphs.units import fmt_bytes, fmt_s, shape_text, sig3


def where(w, file, line):
    """file:line, the file named as the script is when it is the script, else by its path."""
    same = w.script and os.path.abspath(file) == os.path.abspath(w.script)
    return f"{os.path.basename(file) if same else file}:{line}"


def _embedded(w, d):
    """A Const that is mostly data, where it was made, and the first run after it."""
    e = d["evidence"]
    text = (f"{where(w, d['file'], d['line'])} embedded {e['bytes']:,} bytes ({fmt_bytes(e['bytes'])}) in the "
            f"graph: the NodeDef of the Const op named '{e['name']}' ({e['dtype']} {shape_text(e['shape'])})")
    nxt = e.get("next_call")
    if nxt is None:
        return text + "; no run followed it."
    later = (f", later runs {fmt_s(nxt['later_median_s'])} median (n={nxt['n'] - 1})" if nxt["later_median_s"]
             is not None else ", its only run")
    beyond = " beyond a later run there" if nxt["later_median_s"] is not None else ""
    return text + (f"; the first run that came after it, {where(w, nxt['file'], nxt['line'])}, took "
                   f"{fmt_s(nxt['first_s'])}{later}" + _spent(w, e, beyond) + _same_first_run(w, d) + ".")


def _same_first_run(w, d):
    """'; that first run came after N other embedded Consts too: one cost, said with each', where it did."""
    others = sum(1 for o in w.findings if o != d and o["kind"] == "embedded-constant"
                 and o["evidence"].get("next_call") == d["evidence"]["next_call"])
    if not others:
        return ""
    return (f"; that first run came after {others} other embedded Const{'s' if others != 1 else ''} too: one cost, "
            f"said with each")


def _repeated(w, d):
    """An array fed unchanged on every call of one line, and the time handing it to TensorFlow took."""
    e = d["evidence"]
    what = (f"{e['converted_from']}, which session.py converted to a {e['bytes']:,}-byte array on each call "
            f"(np.asarray once, before the calls, would leave only the feed),"
            if e.get("converted_from") else f"{e['bytes']:,}-byte array")
    head = (f"{where(w, d['file'], d['line'])} fed the same {what} to placeholder {e['feed']} "
            f"on all {e['calls']} calls ({e['how']}): fed on every call though unchanged")
    if e.get("convert_s") is None:
        return head + " (its cost per call was not measured)."
    return (head + f"; handing it over as session.py does (np.asarray at the placeholder's dtype) took "
            f"{_short(e['convert_s'] / e['calls'])} a call as timed here" + _spent(w, e) + ".")


def _short(seconds):
    """A duration that may be far under a millisecond: in microseconds there, as fmt_s otherwise."""
    return f"{seconds * 1e6:.0f} µs" if seconds < 1e-4 else fmt_s(seconds)


def _spent(w, e, beyond=""):
    """'; together T[ beyond], P% of the script's R run[, under 1% of it]' of what a diagnosis cost, where the
    document has it."""
    if e.get("cost_s") is None:
        return ""
    return f"; together {_short(e['cost_s'])}{beyond}" + _share(w, e)


def _share(w, e):
    """', P% of the script's R run', and ', under 1% of it' below SMALL, where the document has the share."""
    if e.get("share") is None:
        return ""
    small = f", under {SMALL:.0%} of it" if e["share"] < SMALL else ""
    return f", {_percent(e['share'])} of the script's {fmt_s(w.script_s)} run{small}"


def _percent(share):
    """A share as a percentage, to three significant digits."""
    return f"{sig3(100 * share)}%"


def _types(op_types):
    """Every op type with its count, most first, or the first SHOWN_TYPES and 'and N more'."""
    ranked = sorted(op_types.items(), key=lambda kv: (-kv[1], kv[0]))
    named = ", ".join(f"{n} {t}" for t, n in ranked[:SHOWN_TYPES])
    more = len(ranked) - SHOWN_TYPES
    return named + (f" and {more} more type{'s' if more != 1 else ''}" if more > 0 else "")


def _growth(w, d):
    """A loop's line that kept making ops, through which builder, of which types and what they were, and the runs
    right after them."""
    e = d["evidence"]
    builder = e.get("builder") or d
    line = where(w, d["file"], d["line"])
    made = where(w, builder["file"], builder["line"])
    chain = [where(w, v["file"], v["line"]) for v in e.get("via") or ()]
    who = (line if made == line else
           f"{line}, in the loop, called {' -> '.join(reversed(chain[:-1])) if len(chain) > 1 else made}, which")
    named = [CAUSES[c].what for c in sorted(e.get("causes") or {}) if c in CAUSES]
    text = (f"{who} made {e['ops']:,} ops after the session's first run, in the gaps after {e['runs']} of its runs "
            f"({_types(e['op_types'])}): the graph grows as the loop goes")
    if named:
        text += f"; they are {' and '.join(named)}, made again on every pass"
    if e.get("after_runs"):
        base = (f"{fmt_s(e['repeat_median_s'])} median for a repeat there" if e.get("repeat_median_s") is not None
                else "no repeat there to compare with, so all of it is counted")
        text += (f"; the {e['after_runs']} runs right after them, at {where(w, **e['after_site'])}, took "
                 f"{fmt_s(e['after_s_total'])} against {base}" + _spent(w, e) + _shared(w, d))
    return text + "."


def _shared(w, d):
    """'; the same runs came right after the ops of LINE and LINE too: one cost, said with each', where other
    growth diagnoses rest on the same runs (the same call site, count and total)."""
    e = d["evidence"]
    same = [where(w, o["file"], o["line"]) for o in w.findings
            if o != d and o["kind"] == "graph-growth" and (o["file"], o["line"]) != (d["file"], d["line"])
            and o["evidence"].get("after_site") == e["after_site"]
            and (o["evidence"].get("after_runs"), o["evidence"].get("after_s_total")) == (e["after_runs"],
                                                                                        e["after_s_total"])]
    if not same:
        return ""
    return f"; the same runs came right after the ops of {' and '.join(same)} too: one cost, said with each"


def _sessions(w, d):
    """A line that made a new session on each pass, and what the sessions beyond the first cost."""
    e = d["evidence"]
    firsts = e["first_s"]
    head = (f"{where(w, d['file'], d['line'])} made a new session {e['made']} times, each on the same graph: their "
            f"first runs took {fmt_s(statistics.median(firsts))} median (n={len(firsts)})")
    if e.get("verdict"):
        verdict = Verdict.from_dict(e["verdict"])
        return judged(head + f" against {fmt_s(e['repeat_median_s'])} median for the {e['repeats']} runs that "
                      f"repeated a set of names in one session: slower, {verdict.says()}; making the sessions took "
                      f"{fmt_s(e['init_s_total'])}" + _spent(w, e) + ", beyond one session.", verdict)
    return (head + f", and making the sessions took {fmt_s(e['init_s_total'])}; no run repeated a set of names in one "
            f"session to compare with, so all of their first runs are counted" + _spent(w, e) + ", beyond one "
            "session.")


def _signatures(w, d):
    """A call site's new sets of fed and fetched names, their first calls against its repeats."""
    e = d["evidence"]
    verdict = Verdict.from_dict(e["verdict"])
    firsts = ", ".join(sig3(t * 1e3) for t in e["new_first_s"])
    return judged(f"{where(w, d['file'], d['line'])} ran {e['signatures']} different sets of fed and fetched names; "
                  f"the new sets' first calls took {firsts} ms against {sig3(e['repeat_median_s'] * 1e3)} ms median "
                  f"for the {e['repeats']} repeats of a set used before: slower, {verdict.says()}"
                  + _spent(w, e, " beyond a repeat") + ".", verdict)


def _retracing(w, d):
    """A tf.function traced more than once."""
    e = d["evidence"]
    return (f"{where(w, d['file'], d['line'])}: the tf.function {e['name']} defined here was traced "
            f"{e['traces']} times (TensorFlow's experimental_get_tracing_count); the time its tracing took is not "
            f"measured here.")


SHOWN = 4   # diagnoses in the answer; the rest are in the findings
SHOWN_TYPES = 6   # op types named in a growth sentence; the table lists all
SMALL = 0.01   # a timed diagnosis costing less than this share of the script's run time stays out of the answer
TEXT = {"embedded-constant": _embedded, "repeated-feed": _repeated, "graph-growth": _growth,
        "new-signature": _signatures, "retracing": _retracing, "session-per-pass": _sessions}   # diagnosis kind -> its sentence, without remedy


def diagnosis_sentence(w, d):
    """The diagnosis as one sentence, then its remedy and where the course teaches it."""
    sentence = TEXT[d["kind"]](w, d)
    return judged(f"{sentence} Remedy: {d['remedy']}. Taught in {d['lesson']}.", *getattr(sentence, "verdicts", ()))


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


def _signal_name(number):
    """A signal's name (SIGKILL for 9), or 'signal N' for a number Python does not name."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


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


def diagnoses(view):
    """The script's diagnoses, the most costly in this run first (records.one_record.diagnoses ranks them)."""
    return view.record.findings


@finding("watch.ending", ("runs",), headline=True,
         template="{script} ran to its end / exited with status {n} / raised / was interrupted / was killed by "
         "{signal}: {n} Session.run calls from {n} lines. / Watched in this process so far: ...")
def ending(view):
    """How the script ended, and how many Session.run calls it made from how many lines."""
    w = view.record
    runs = (f"{w.runs} Session.run call{'s' if w.runs != 1 else ''} from {len(w.calls)} "
            f"line{'s' if len(w.calls) != 1 else ''}")
    if w.script is None:   # watching() in a notebook: no script, and nothing has ended
        return [f"Watched in this process so far: {runs}."]
    name = os.path.basename(w.script)
    if w.ended == "exit":
        how = "ran to its end" if w.exit_code == 0 else f"exited with status {w.exit_code}"
    elif w.ended == "raised":
        how = f"raised (exit status {w.exit_code})"
    elif w.ended == "interrupted":
        how = f"was interrupted (exit status {w.exit_code}); what it did until then"
    elif w.ended == "killed":
        how = f"was killed by {_signal_name(w.exit_code - 128)} (exit status {w.exit_code})"
    else:
        how = f"ended with status {w.exit_code}"
    return [f"{name} {how}: {runs}."]


@finding("watch.not_watched", ("error",), headline=True, template="The hooks could not watch it: {error}.",
         unless="the hooks watched the script")
def not_watched(view):
    """Why the hooks could not watch the script."""
    if view.record.status == "ok":
        return []
    return [f"The hooks could not watch it: {view.record.error}."]


@finding("watch.built_only", ("graph_ops",), headline=True,
         template="It built a graph of {n} ops and ran no session and no tf.function: nothing ran, so there were no "
         "runs to time. Its Consts of {bytes} bytes or more: ...", unless="the script ran a session or a tf.function")
def built_only(view):
    """The script built a graph and ran nothing: its size and its large Consts."""
    w = view.record
    if not _built_only(w):
        return []
    return [f"It built a graph of {w.graph_ops:,} op{'s' if w.graph_ops != 1 else ''} and ran no session and no "
            f"tf.function: nothing ran, so there were no runs to time." + _consts_seen(w)]


@finding("watch.no_graph_mode", headline=True,
         template="It never used TensorFlow's graph mode (no session run, no Const, no tf.function): nothing to watch.",
         unless="the script ran a session, made a large Const or a tf.function, or grew its graph")
def no_graph_mode(view):
    """The script never used graph mode: nothing to watch."""
    if not _no_graph_mode(view.record):
        return []
    return ["It never used TensorFlow's graph mode (no session run, no Const, no tf.function): nothing to watch."]


@finding("watch.found", ("findings",), headline=True,
         template="{the first diagnoses, one line each} / And {n} more findings ({kinds}): see below. / {n} smaller "
         "findings ({kinds}), each under 1% of the script's run time: see below.", unless="nothing was found")
def found(view):
    """The first diagnoses that matter; past SHOWN, and for those timed under SMALL of the run, a last line says how
    many more the findings hold."""
    w = view.record
    if not _watched(w):
        return []
    # Only a cost the judge measured against the script's own repeats moves a diagnosis out of the answer.
    small = [d for d in w.findings if "verdict" in d["evidence"] and d["evidence"].get("share") is not None
             and d["evidence"]["share"] < SMALL]
    large = [d for d in w.findings if d not in small]
    shown = large if len(large) <= SHOWN and not small else large[:SHOWN - 1]
    lines = [TEXT[d["kind"]](w, d) for d in shown]
    rest = [d for d in large if d not in shown]
    if rest:
        lines.append(f"And {len(rest)} more findings ({', '.join(sorted({d['kind'] for d in rest}))}): see below.")
    if small:
        lines.append(f"{len(small)} smaller finding{'s' if len(small) != 1 else ''} "
                     f"({', '.join(sorted({d['kind'] for d in small}))}), each under {SMALL:.0%} of the script's run "
                     f"time: see below.")
    return lines


@finding("watch.traced", ("functions",), headline=True,
         template="tf.functions traced, as TensorFlow counts: {name} ({line}) {n} times, ...",
         unless="something was found, or no tf.function was traced")
def traced(view):
    """TensorFlow's trace counts, when nothing was found."""
    w = view.record
    if not _watched(w) or w.findings:
        return []
    counts = ", ".join(f"{f['name']} ({where(w, f['file'], f['line'])}) {f['traces']} "
                       f"time{'s' if f['traces'] != 1 else ''}" for f in w.functions[:3])
    return [f"tf.functions traced, as TensorFlow counts: {counts}."]


@finding("watch.clean", headline=True,
         template="No finding: no Const of {bytes} or more that is mostly data, no line that kept making ops between "
         "one session's runs, ...", unless="something was found, or the script did not use graph mode")
def clean(view):
    """What was looked for and not found, when nothing was."""
    w = view.record
    if not _watched(w) or w.findings:
        return []
    least = f"{w.min_bytes:,} bytes" if w.min_bytes else "--min-bytes"
    return [f"No finding: no Const of {least} or more that is mostly data, no line that kept making ops between one "
            f"session's runs, no array of {least} or more fed unchanged on every call, no call site paying new first "
            f"runs, no line making a session on each pass, no retracing."]


@finding("watch.failed", ("error",),
         template="The hooks could not watch this script ({error}); it ran as it would have without them.",
         unless="the hooks watched the script")
def failed(view):
    """The hooks failed, and the script ran without them."""
    if view.record.status == "ok":
        return []
    return [f"The hooks could not watch this script ({view.record.error}); it ran as it would have without them."]


def diagnosed(view, d, kind):
    """The diagnosis d as a sentence with its remedy and lesson, when it is of this kind."""
    return [diagnosis_sentence(view.record, d)] if view.record.status == "ok" and d["kind"] == kind else []


REMEDY = " Remedy: {remedy}. Taught in {lesson}."


@finding("watch.embedded-constant", ("findings",), per=diagnoses,
         template="{line} embedded {bytes} bytes ({bytes}) in the graph: the NodeDef of the Const op named '{name}' "
         "({dtype} {shape}); the first run that came after it, {line}, took {time}, ...; that first run came after {n} "
         "other embedded Consts too: one cost, said with each." + REMEDY,
         unless="no Const of --min-bytes or more is mostly data")
def embedded_constant(view, d):
    """A Const that is mostly data, with the first run after it."""
    return diagnosed(view, d, "embedded-constant")


@finding("watch.repeated-feed", ("findings",), per=diagnoses,
         template="{line} fed the same {bytes}-byte array to placeholder {feed} on all {n} calls ({how}): fed on "
         "every call though unchanged; handing it over as session.py does (np.asarray at the placeholder's dtype) "
         "took {time} a call as timed here; ...; together {time}, {share} of the script's {time} run{, under 1% of "
         "it}." + REMEDY,
         unless="no array of --min-bytes or more was fed unchanged on every call")
def repeated_feed(view, d):
    """An array fed unchanged on every call."""
    return diagnosed(view, d, "repeated-feed")


@finding("watch.graph-growth", ("findings",), per=diagnoses,
         template="{loop line}, in the loop, called {builder line}, which made {n} ops after the session's first run, "
         "in the gaps after {n} of its runs ({op types}): the graph grows as the loop goes; they are {a Saver's, "
         "summary, Dataset or initializer ops}, ...; the {n} runs right after them, at {line}, took {time} against "
         "{time} median for a repeat there; together {time}, ...; the same runs came right after the ops of {line} "
         "too: one cost, said with each." + REMEDY,
         unless="no line kept making ops between one session's runs")
def graph_growth(view, d):
    """A line that kept making ops between one session's runs."""
    return diagnosed(view, d, "graph-growth")


@finding("watch.new-signature", ("findings",), per=diagnoses,
         template="{line} ran {n} different sets of fed and fetched names; the new sets' first calls took {ms} ms "
         "against {ms} ms median for the {n} repeats of a set used before: slower, {verdict}; together {time} beyond "
         "a repeat, ..." + REMEDY, unless="no call site paid new first runs the judge tells apart")
def new_signature(view, d):
    """A call site paying new first runs for new sets of fed and fetched names."""
    return diagnosed(view, d, "new-signature")


@finding("watch.session-per-pass", ("findings",), per=diagnoses,
         template="{line} made a new session {n} times, each on the same graph: their first runs took {time} median "
         "(n={n}) against {time} median for the {n} runs that repeated a set of names in one session: slower, "
         "{verdict}; making the sessions took {time}; together {time}, ..., beyond one session." + REMEDY,
         unless="no line made more than one session on one graph")
def session_per_pass(view, d):
    """A line that made a new session on each pass of a loop, on one graph."""
    return diagnosed(view, d, "session-per-pass")


@finding("watch.retracing", ("findings",), per=diagnoses,
         template="{line}: the tf.function {name} defined here was traced {n} times (TensorFlow's "
         "experimental_get_tracing_count); the time its tracing took is not measured here." + REMEDY,
         unless="no tf.function was traced more than once")
def retracing(view, d):
    """A tf.function traced more than once."""
    return diagnosed(view, d, "retracing")


@finding("watch.first_runs", ("calls",),
         template="{line}: first run {time}, later runs {time} median (n={n}); each of its {n} calls used a new set "
         "of fed and fetched names, ...", unless="no call site ran more than once")
def first_runs(view):
    """Each call site's first run against its later ones, as measured in the script."""
    w = view.record
    if w.status != "ok":
        return []
    return [_first_runs(w, c) for c in w.calls if c["later_median_s"] or c.get("sessions", 1) > 1]


def _first_runs(w, c):
    """A call site's first run against its later ones; over several sessions, each session's first run here."""
    line = where(w, c["file"], c["line"])
    firsts = c.get("session_first_s") or [c["first_s"]]
    later = c["n"] - len(firsts)
    rest = (f"later runs in the same session {fmt_s(c['later_median_s'])} median (n={later})" if c["later_median_s"]
            else "no later run in the same session")
    if len(firsts) > 1:
        return (f"{line}: ran in {len(firsts)} sessions, each paying a first run here: "
                f"{fmt_s(statistics.median(firsts))} median (n={len(firsts)}); {rest}" + _sets(c) + ".")
    return f"{line}: first run {fmt_s(c['first_s'])}, later runs {fmt_s(c['later_median_s'])} median (n={later})" + \
        _sets(c) + "."


def answer_and_findings(results):
    """(the answer, the findings): the ending, up to four diagnoses and what was not found when nothing was; then the
    diagnoses and each call site's first run against its later runs."""
    return answer_then_findings(FINDINGS["watch"], lambda: Record(results))
