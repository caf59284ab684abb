"""What a watched script's own runs show, a sentence per diagnosis, each tied to the script's file and line."""

import os

from tfgraphs.findings.evidence import judged, rests_on
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


SAID = {"embedded-constant": _embedded, "repeated-feed": _repeated, "graph-growth": _growth,
        "new-signature": _signatures, "retracing": _retracing}


def said(w, d):
    """The diagnosis as one sentence, then its remedy and where the course teaches it."""
    sentence = SAID[d["kind"]](w, d)
    return judged(f"{sentence} Remedy: {d['remedy']}. Taught in {d['lesson']}.", *getattr(sentence, "verdicts", ()))


@rests_on("findings")
def _diagnosed(w):
    return [said(w, d) for d in w.findings]


@rests_on("calls")
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


def sentences(w):
    """The diagnoses, then each call site's first run against its later runs."""
    if w.status != "ok":
        return [f"The hooks could not watch this script ({w.error}); it ran as it would have without them."]
    return _diagnosed(w) + _first_runs(w)
