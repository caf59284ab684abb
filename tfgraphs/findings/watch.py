"""What a watched script's own runs show, a sentence per diagnosis, each tied to the script's file and line."""

import os

from tfgraphs.findings.evidence import rests_on
from tfgraphs.spec.watch import KINDS
from tfgraphs.units import fmt_bytes, fmt_s


def where(w, file, line):
    """file:line, the file named as the script is when it is the script, else by its path."""
    same = w.script and os.path.abspath(file) == os.path.abspath(w.script)
    return f"{os.path.basename(file) if same else file}:{line}"


def _embedded(w, d):
    e = d["evidence"]
    said = (f"{where(w, d['file'], d['line'])} embedded {fmt_bytes(e['bytes'])} in the graph: Const {e['name']} "
            f"({e['dtype']}, {e['bytes']:,} bytes of NodeDef)")
    nxt = e.get("next_call")
    if nxt is None:
        return said + "; no run followed it."
    later = (f", later runs {fmt_s(nxt['later_median_s'])} median (n={nxt['n'] - 1})" if nxt["later_median_s"]
             is not None else ", its only run")
    return said + f"; the first run after it, {where(w, nxt['file'], nxt['line'])}, took {fmt_s(nxt['first_s'])}{later}."


def _repeated(w, d):
    e = d["evidence"]
    return (f"{where(w, d['file'], d['line'])} fed the same {fmt_bytes(e['bytes'])} array to {e['feed']} on all "
            f"{e['calls']} calls ({e['how']}): it crossed feed_dict every time.")


def _growth(w, d):
    e = d["evidence"]
    kinds = ", ".join(f"{n} {t}" for t, n in sorted(e["op_types"].items(), key=lambda kv: -kv[1])[:3])
    return (f"{where(w, d['file'], d['line'])} made {e['ops']:,} ops after the session's first run, during "
            f"{e['runs']} runs ({kinds}): the graph grows as the loop goes.")


def _signatures(w, d):
    e = d["evidence"]
    every = e["slower"] == len(e["new_first_s"])
    return (f"{where(w, d['file'], d['line'])} ran {e['signatures']} different fetch/feed sets; {e['slower']} of "
            f"the {len(e['new_first_s'])} new ones took longer on their first call than any of {e['repeats']} "
            f"repeats ({fmt_s(e['repeat_min_s'])}-{fmt_s(e['repeat_max_s'])})"
            + (": each new set paid a first run." if every else "."))


def _retracing(w, d):
    e = d["evidence"]
    return (f"{where(w, d['file'], d['line'])}: tf.function {e['name']} was traced {e['traces']} times "
            f"(TensorFlow's experimental_get_tracing_count).")


SAID = {"embedded-constant": _embedded, "repeated-feed": _repeated, "graph-growth": _growth,
        "new-signature": _signatures, "retracing": _retracing}


def said(w, d):
    """The diagnosis as one sentence, then its remedy and where the course teaches it."""
    kind = KINDS[d["kind"]]
    return f"{SAID[d['kind']](w, d)} Remedy: {kind.remedy}. Taught in {kind.lesson}."


@rests_on("findings")
def _diagnosed(w):
    return [said(w, d) for d in w.findings]


@rests_on("calls")
def _first_runs(w):
    """Each call site's first run against its later ones, as measured in the script."""
    return [f"{where(w, c['file'], c['line'])}: first run {fmt_s(c['first_s'])}, later runs "
            f"{fmt_s(c['later_median_s'])} median (n={c['n'] - 1})." for c in w.calls if c["later_median_s"]]


def sentences(w):
    """The diagnoses, then each call site's first run against its later runs."""
    if w.status != "ok":
        return [f"The hooks could not watch this script ({w.error}); it ran as it would have without them."]
    return _diagnosed(w) + _first_runs(w)
