"""What grading a class prints and writes: the table, the class's summary, the JSON grades (and the rows an
earlier one lends to submissions that have not changed), the CSV gradebook and Gradescope's results.json.

    tfgraphs lab grade 1 subs/ --json grades.json --csv grades.csv
    tfgraphs lab grade 1 /autograder/submission/lab1.py --gradescope /autograder/results/results.json
"""

import csv
import hashlib
import os
import sys
import textwrap
from collections import Counter

import tfgraphs
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc, write_atomic, write_doc
from tfgraphs.labs.checking import LOADING   # the outcome of a file that never reached a check

SCHEMA = 1
KIND = "lab grades"
PASSED = "passed"
WIDTH = 100
BAR = 20   # characters of a check's bar in the summary


def fingerprint(path):
    """The SHA-256 of the file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


# The JSON grades, and what an earlier one lends.

def document(subs, seconds, jobs, timeout_s):
    """The JSON document of a class's grades: one record a submission."""
    return {"schema": SCHEMA, "kind": KIND, "tfgraphs_version": tfgraphs.__version__, "jobs": jobs,
            "timeout_s": timeout_s, "seconds": round(seconds, 3),
            "submissions": [{"file": s.path, "name": s.name, "lab": s.lab, "sha256": s.sha256, "status": s.status,
                             "reason": s.reason, "passed": s.passed, "checks": s.checks,
                             "seconds": round(s.seconds, 3), "judged": not s.reused, "outcomes": s.outcomes,
                             "ended": [list(e) for e in s.ended]} for s in subs]}


# The keys of an earlier record a row is filled from, and the JSON kinds each must have.
KEPT = {"name": str, "lab": (int, type(None)), "sha256": str, "status": str, "reason": str, "passed": int, "checks": int,
        "seconds": (int, float), "outcomes": list}
OUTCOME = {"name": str, "passed": bool, "detail": str, "hint": str}


def earlier(path, timeout_s):
    """{(name, lab, sha256): record} of the grades at path written by this tfgraphs with the same --timeout, or {}
    when there is no such file; UsageError, in one line, when the file is something else."""
    if not os.path.exists(path):
        return {}
    doc = read_doc(path)
    if not isinstance(doc, dict) or doc.get("kind") != KIND or doc.get("schema") != SCHEMA:
        raise UsageError(f"{path} is not a class's grades written by `tfgraphs lab grade --json`; name another file")
    if doc.get("tfgraphs_version") != tfgraphs.__version__ or doc.get("timeout_s") != timeout_s:
        return {}   # another checker, or other limits: every row is judged again
    subs = doc.get("submissions")
    if not isinstance(subs, list):
        raise UsageError(f"{path}: submissions is not a list")
    found = {}
    for i, record in enumerate(subs):
        _check_keys(record, KEPT, f"{path}: submissions[{i}]")
        for j, outcome in enumerate(record["outcomes"]):
            _check_keys(outcome, OUTCOME, f"{path}: submissions[{i}].outcomes[{j}]")
        found[record["name"], record["lab"], record["sha256"]] = record
    return found


def _check_keys(record, kinds, where):
    """UsageError naming the first key of record missing or not of its kind."""
    if not isinstance(record, dict):
        raise UsageError(f"{where} is not an object")
    for key, kind in kinds.items():
        value = record.get(key)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise UsageError(f"{where}.{key} is {'missing' if key not in record else repr(value)[:40]}, not what "
                             f"`tfgraphs lab grade --json` writes")


def lend(subs, records):
    """Fill each submission unchanged since records were written (same name, lab and bytes) from its record; the
    ones still to judge."""
    todo = []
    for sub in subs:
        record = records.get((sub.name, sub.lab, sub.sha256))
        if record is None or sub.lab is None:
            todo.append(sub)
            continue
        for key in ("status", "reason", "passed", "checks", "seconds", "outcomes"):
            setattr(sub, key, record[key])
        sub.reused = True
    return todo


# The CSV gradebook and Gradescope's results.json.

def reached(sub):
    """The outcomes of the checks a submission reached (none where its file did not load)."""
    return [o for o in sub.outcomes if o["name"] != LOADING]


def check_columns(subs):
    """The CSV's column a check, in the order the checks run: its name, or "lab N: name" in a class of several labs."""
    seen = {}
    for s in subs:
        for o in reached(s):
            seen.setdefault((s.lab, o["name"]), None)
    several = len({lab for lab, _ in seen}) > 1
    return {key: (f"lab {key[0]}: {key[1]}" if several else key[1]) for key in seen}


def write_csv(subs, path):
    """One row a submission: its file, lab, result, checks passed, 1 or 0 a check (empty: not reached), time, why."""
    columns = check_columns(subs)
    head = ["file", "lab", "result", "passed", "checks", *columns.values(), "seconds", "why"]

    def write(f):
        out = csv.writer(f)
        out.writerow(head)
        for s in subs:
            each = {o["name"]: int(o["passed"]) for o in reached(s)}
            out.writerow([s.name, "" if s.lab is None else s.lab, s.status, s.passed, s.checks,
                          *[each.get(name, "") if lab == s.lab else "" for lab, name in columns],
                          f"{s.seconds:.3f}", s.reason])
    write_atomic(path, write, mode="w")


def gradescope(sub):
    """Gradescope's results.json of one submission: one test a check, a point each; where no check was reached, one
    test worth them all, failed, saying why."""
    def test(name, passed, most, output):
        return {"name": name, "score": most if passed else 0, "max_score": most,
                "status": "passed" if passed else "failed", "output": output, "visibility": "visible"}

    tests = [test(o["name"], o["passed"], 1, "\n".join(filter(None, (o["detail"], o["hint"] and
                                                                     f"hint: {o['hint']}")))) for o in reached(sub)]
    if not tests:
        tests = [test(LOADING, False, sub.checks, f"{sub.status}: {sub.reason}")]
    return {"score": sub.passed, "execution_time": round(sub.seconds, 3), "tests": tests,
            "output": f"lab {sub.lab}: {sub.passed} of {sub.checks} checks passed"}


def write_gradescope(subs, path):
    """Write the one submission's results.json to path."""
    (sub,) = subs
    write_doc(gradescope(sub), path)


# What the grader prints.

def table(subs, seconds, jobs, stream=None):
    """Print one row a submission (and, under a failed one, why) and the class's count; return the exit status
    (0 = every check of every submission passed)."""
    from tfgraphs.labs.verdicts import shown

    name_w = min(max([len(s.name) for s in subs] + [10]), WIDTH - 40)
    print(f"{'submission':<{name_w}}  lab  passed     time  result", file=stream)
    for s in subs:
        name = s.name if len(s.name) <= name_w else "..." + s.name[-(name_w - 3):]
        lab = "-" if s.lab is None else str(s.lab)
        passed = f"{s.passed} of {s.checks}" if s.checks else "-"
        result = s.status + (" (unchanged)" if s.reused else "")
        print(f"{name:<{name_w}}  {lab:>3}  {passed:>6}  {s.seconds:>6.1f}s  {result}", file=stream)
        if s.reason:
            why = shown(" ".join(s.reason.split()))   # a solution's own error message, escapes and all
            print(f"  {why if len(why) <= WIDTH - 2 else why[:WIDTH - 5] + '...'}", file=stream)
    good = sum(s.status == PASSED for s in subs)
    judged = [s for s in subs if s.lab is not None and not s.reused]
    each = f" ({seconds / len(judged):.1f} s a submission, {jobs} at a time)" if judged else ""
    kept = sum(s.reused for s in subs)
    again = f"; {kept} unchanged since the grades given, not judged again (--regrade judges them)" if kept else ""
    print(f"{good} of {len(subs)} submissions passed every check; {seconds:.1f} s in all{each}{again}", file=stream)
    return 0 if good == len(subs) else 1


def summary(subs, stream=None):
    """Print, for the class, a bar a check of how many passed it, and the check failed most often with its most
    common hint."""
    from tfgraphs.labs.verdicts import shown

    columns = check_columns(subs)
    if not columns:
        return
    passed, ran, hints = Counter(), Counter(), {}
    for s in subs:
        for o in reached(s):
            key = (s.lab, o["name"])
            ran[key] += 1
            passed[key] += o["passed"]
            if not o["passed"]:
                hints.setdefault(key, Counter())[o["hint"] or o["detail"]] += 1
    print("\nEach check, of the submissions that reached it (# passed):", file=stream)
    digits = len(str(max(ran.values())))
    for key, name in columns.items():
        filled = round(BAR * passed[key] / ran[key])
        line = f"  {'#' * filled:.<{BAR}}  {passed[key]:>{digits}} of {ran[key]:<{digits}}  {name}"
        print(line if len(line) <= WIDTH else line[:WIDTH - 3] + "...", file=stream)
    unloaded = Counter(s.status for s in subs if s.lab is not None and not reached(s))
    if unloaded:
        print(f"Reached no check: {sum(unloaded.values())} ("
              f"{', '.join(f'{n} {status}' for status, n in sorted(unloaded.items()))}; each one's row says why)",
              file=stream)
    if hints:
        key = max(hints, key=lambda k: (sum(hints[k].values()), -list(columns).index(k)))
        hint, _ = hints[key].most_common(1)[0]
        said = f"Failed most often: {columns[key]} ({sum(hints[key].values())} of {ran[key]}); its most common " \
               f"hint: {shown(' '.join(hint.split()))[:240]}"
        print(textwrap.fill(said, WIDTH, subsequent_indent="  "), file=stream)


def print_progress(done, total, sub):
    """One line on stderr a finished submission, when stderr is a terminal."""
    if sys.stderr.isatty():
        print(f"\r[{done}/{total}] {sub.path[-60:]:<60}", end="" if done < total else "\n", file=sys.stderr,
              flush=True)
