"""Grade a class: `tfgraphs lab grade N FOLDER` (or several files, or `all`), one row a submission, K at a time;
the table, the class's summary, the JSON grades (whose rows a submission that has not changed keeps), the CSV
gradebook and Gradescope's results.json.

    tfgraphs lab grade all subs/ --jobs 2 --json grades.json --csv grades.csv
    tfgraphs lab grade 1 /autograder/submission/lab1.py --gradescope /autograder/results/results.json

Each submission is judged in a process of its own (`python -m tfgraphs.labs.grading N PATH TIMEOUT MEMORY`), which leads
its own session and runs labs.checking's collect() on it: the student's code in a child with the per-check timeout,
the judging in the judge process, what the code left running ended. That judge hands back one JSON record on stdout;
a judge that crashes, hangs past every check's timeout or sends anything else is a failed row that says so. Judges
and their children fork from one server that imported TensorFlow once (processes), so a submission pays for its own
checks only.
"""

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import tfgraphs
from tfgraphs import processes, usercode
from tfgraphs.errors import UsageError
from tfgraphs.fileio import read_doc, write_atomic, write_doc
from tfgraphs.labs import LABS, known_lab
from tfgraphs.labs.checking import LOADING   # the outcome of a file that never reached a check

SUFFIXES = (".py", ".ipynb")
SKIPPED = (".ipynb_checkpoints", "__pycache__")   # folders a notebook server or Python leaves, never submissions
NAMED = re.compile(r"lab[ _-]?(\d+)", re.IGNORECASE)   # lab3.py, lab_3/, Lab-3.ipynb
COURSE_FOLDER = re.compile(r"^(\d+)-")                 # a copied course folder: 3-bloat/
# The statuses of a row; every one but "passed" fails the class's exit status.
PASSED, FAILED, TIMEOUT, MEMORY, CRASHED, UNUSABLE, UNMATCHED = "passed", "failed", "timeout", "memory", "crashed", \
    "unusable", "unmatched"
SCHEMA = 1
KIND = "lab grades"
WIDTH = 100
BAR = 20   # characters of a check's bar in the summary


@dataclass
class Submission:
    """One file to grade: its path as given, the lab it is judged against (None: no lab found in its name)."""

    path: str
    lab: int | None
    name: str = ""   # as the table shows it: the path below the folder given
    status: str = ""
    reason: str = ""
    passed: int = 0
    checks: int = 0
    seconds: float = 0.0
    outcomes: list = field(default_factory=list)
    ended: list = field(default_factory=list)
    sha256: str = ""
    reused: bool = False   # its row lent by earlier grades of the same bytes, not judged again


# Which files, and which lab each is judged against.

def lab_in_name(path, top):
    """The lab a submission's file name names (lab3.py), else its nearest folder below top (lab3/, 3-bloat/)."""
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(top)) if top else os.path.basename(path)
    for part in reversed(relative.split(os.sep)):
        found = NAMED.search(part) or COURSE_FOLDER.match(part)
        if found and int(found.group(1)) in LABS:
            return int(found.group(1))
    return None


def files_in(folder):
    """Every .py and .ipynb under folder, sorted, leaving out hidden folders and the ones tools leave."""
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED)
        found += [os.path.join(root, n) for n in sorted(names) if n.endswith(SUFFIXES) and not n.startswith(".")]
    return sorted(found)


def submissions(number, paths):
    """The Submissions of the paths (files and folders) for lab `number`, or "all" (each by the lab its name
    names); UsageError, before anything starts, for a path that is neither or a folder holding no submission."""
    if number != "all":
        known_lab(number)
    found = []
    for path in paths:
        if os.path.isdir(path):
            inside = files_in(path)
            if not inside:
                raise UsageError(f"{path} holds no .py or .ipynb file to check")
            found += [(p, path) for p in inside]
        elif os.path.isfile(path) and path.endswith(SUFFIXES):
            found.append((path, None))
        else:
            from tfgraphs.labs.checking import solution_file
            solution_file(path)   # says what is wrong with it
    return [Submission(p, number if number != "all" else lab_in_name(p, top),
                       os.path.relpath(p, top) if top else p, sha256=fingerprint(p)) for p, top in found]


# The judge's side: one submission, one JSON record.

def judged(number, path, timeout_s, memory_bytes):
    """The record of lab `number`'s checks on the file at path, as the judge process sends it."""
    from tfgraphs.labs.checking import checks_of, collect, solution_file
    from tfgraphs.labs.notebook import as_script

    ended, checks = [], len(checks_of(number))
    try:
        solution_file(path)
        with as_script(os.path.abspath(path)) as script:
            outcomes = collect(number, script, timeout_s, ended, memory_bytes)
    except UsageError as exc:
        return {"usage": str(exc), "checks": checks, "ended": ended}
    return {"outcomes": [asdict(o) for o in outcomes], "checks": checks, "ended": ended}


def judge_main(argv):
    """`python -m tfgraphs.labs.grading N PATH TIMEOUT MEMORY`: a session of its own, one JSON record on stdout."""
    try:
        os.setsid()
    except OSError:
        pass   # already leads one
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)   # what TensorFlow or a notebook's conversion prints stays out of the record
    record = judged(int(argv[0]), argv[1], float(argv[2]), int(argv[3]))
    out.write(json.dumps(record) + "\n")
    out.flush()
    return 0


# The grader's side: judges started, K at a time, their records read.

@contextmanager
def shared_server():
    """Within: every process started below, and theirs, forks from one server that imported TensorFlow once."""
    if processes.SERVERS in os.environ or processes.fresh_because([sys.executable, "-m", "tfgraphs.labs.grading"]):
        yield
        return
    folder = tempfile.mkdtemp(prefix="tfgraphs-grading-")
    os.environ[processes.SERVERS] = folder
    server, path = processes.start_server(dict(os.environ), folder)
    try:
        processes.connect(path, server).close()   # once it has imported TensorFlow: the first judges fork too
    except RuntimeError:
        pass   # it could not start: every judge starts fresh, and says why if it cannot either
    try:
        yield
    finally:
        del os.environ[processes.SERVERS]
        processes.end_server(server, folder)


def limit_s(timeout_s):
    """How long a judge may take in all, a backstop past what the child's own limits allow: every check of the
    longest lab timing out, each in a fresh child that starts as slowly as the checker allows."""
    from tfgraphs.labs.checking import START_S

    return START_S + MOST_CHECKS * (timeout_s + START_S)


MOST_CHECKS = 6   # more than any lab has
RECORD_CHARS = 16 * 2**20   # far past any judge's record; a longer line is no record


def grade_one(sub, timeout_s, memory_bytes):
    """Judge one submission in its own process and fill in its row."""
    start = time.perf_counter()
    argv = [sys.executable, "-m", "tfgraphs.labs.grading", str(sub.lab), os.path.abspath(sub.path), str(timeout_s),
            str(memory_bytes)]
    proc = processes.start(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    # The record is the judge's last line; of its stderr, the last lines say why it crashed.
    out, err = usercode.Tail(proc.stdout, lines=1, line_chars=RECORD_CHARS), usercode.Tail(proc.stderr)
    try:
        code = proc.wait(limit_s(timeout_s))
    except subprocess.TimeoutExpired:
        code = None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sub.ended = usercode.end_session(proc.pid) if _leads(proc.pid) else []
    sub.seconds = time.perf_counter() - start
    fill(sub, code, "".join(out.finished()), err.finished(), limit_s(timeout_s))
    return sub


def _leads(pid):
    """True while pid's session, which the judge leads, still has processes in it."""
    try:
        return os.getsid(pid) == pid
    except OSError:
        return False


def fill(sub, code, out, err, limit):
    """Fill a row from what its judge sent: its outcomes, or why there are none."""
    from tfgraphs.labs.checking import ENDED, OVER_MEMORY, STOPPED

    try:
        record = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = next((line.strip() for line in reversed(err) if line.strip()), "")
        sub.status = TIMEOUT if code is None else CRASHED
        sub.reason = (f"stopped after {limit:g} s in all" if code is None else
                      f"the judge ended with status {code}" + (f": {last[:200]}" if last else ""))
        return
    sub.ended += [tuple(e) for e in record.get("ended", ())]
    sub.checks = int(record.get("checks", 0))
    if "usage" in record:
        sub.status, sub.reason = UNUSABLE, record["usage"].replace(os.path.abspath(sub.path) + " ", "", 1)
        return
    sub.outcomes = record["outcomes"]
    sub.passed = sum(o["passed"] for o in sub.outcomes)
    wrong = [o for o in sub.outcomes if not o["passed"]]
    if not wrong and sub.passed == sub.checks:
        sub.status = PASSED
        return
    first = wrong[0] if wrong else {"name": "a check", "detail": "was never reported"}
    detail = first["detail"]
    sub.status = (TIMEOUT if detail.startswith(STOPPED) else CRASHED if detail.startswith(ENDED) else
                  MEMORY if detail.startswith(OVER_MEMORY) else FAILED)
    sub.reason = f"{first['name']}: {first['detail']}"


def grade(subs, limits, jobs, progress=None, earlier=None):
    """Judge every submission but those earlier grades ({(name, lab, sha256): record}) lend a row, `jobs` at a
    time; the rows, in the order given."""
    todo = [s for s in lend(subs, earlier or {}) if s.lab is not None]
    for sub in subs:
        if sub.lab is None:
            sub.status, sub.reason = UNMATCHED, "no lab number in its file or folder name (lab3.py, lab3/, 3-bloat/)"
    done = []

    def one(sub):
        grade_one(sub, *limits)
        done.append(sub)
        if progress:
            progress(len(done), len(todo), sub)

    with shared_server(), ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, todo))
    return subs


# Which submissions keep their rows, and what the grader prints and writes.

def fingerprint(path):
    """The SHA-256 of the file's bytes, in hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(2**20), b""):
            digest.update(block)
    return digest.hexdigest()


# The JSON grades, and what an earlier one lends.

def document(subs, seconds, jobs, limits):
    """The JSON document of a class's grades: one record a submission."""
    return {"schema": SCHEMA, "kind": KIND, "tfgraphs_version": tfgraphs.__version__, "jobs": jobs,
            "timeout_s": limits[0], "memory_bytes": limits[1], "seconds": round(seconds, 3),
            "submissions": [{"file": s.path, "name": s.name, "lab": s.lab, "sha256": s.sha256, "status": s.status,
                             "reason": s.reason, "passed": s.passed, "checks": s.checks,
                             "seconds": round(s.seconds, 3), "judged": not s.reused, "outcomes": s.outcomes,
                             "ended": [list(e) for e in s.ended]} for s in subs]}


# The keys of an earlier record a row is filled from, and the kinds each must have (as records.schema reads them).
KEPT = {"name": str, "lab": int | None, "sha256": str, "status": str, "reason": str, "passed": int, "checks": int,
        "seconds": float, "outcomes": tuple}
OUTCOME = {"name": str, "passed": bool, "detail": str, "hint": str}


def earlier(path, limits):
    """{(name, lab, sha256): record} of the grades at path written by this tfgraphs with the same limits, or {}
    when there is no such file; UsageError, in one line, when the file is something else."""
    if not os.path.exists(path):
        return {}
    doc = read_doc(path)
    if not isinstance(doc, dict) or doc.get("kind") != KIND or doc.get("schema") != SCHEMA:
        raise UsageError(f"{path} is not a class's grades written by `tfgraphs lab grade --json`; name another file")
    if (doc.get("tfgraphs_version"), doc.get("timeout_s"), doc.get("memory_bytes")) != (tfgraphs.__version__, *limits):
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
    from tfgraphs.records.schema import check_type

    written = "not what `tfgraphs lab grade --json` writes"
    if not isinstance(record, dict):
        raise UsageError(f"{where} is not an object: {written}")
    for key, kind in kinds.items():
        if key not in record:
            raise UsageError(f"{where}.{key} is missing: {written}")
        try:
            check_type(f"{where}.{key}", record[key], kind)
        except ValueError as exc:
            raise UsageError(f"{exc}: {written}") from None


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

def report(subs, seconds, jobs, stream=None):
    """Print the answer first (how many passed every check; for several submissions, the class's summary), then
    one row a submission; return the exit status (0 = every check of every submission passed)."""
    good = sum(s.status == PASSED for s in subs)
    judged = [s for s in subs if s.lab is not None and not s.reused]
    each = f" ({seconds / len(judged):.1f} s a submission, {min(jobs, len(judged))} at a time)" if judged else ""
    kept = sum(s.reused for s in subs)
    print(f"{good} of {len(subs)} submissions passed every check; {seconds:.1f} s in all{each}", file=stream)
    if kept:
        print(f"{kept} unchanged since the grades given, not judged again (--regrade judges them).", file=stream)
    if len(subs) > 1:
        summary(subs, stream)
    print(file=stream)
    table(subs, stream)
    return 0 if good == len(subs) else 1


def table(subs, stream=None):
    """Print one row a submission and, under a failed one, why."""
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
               f"hint: {textwrap.shorten(shown(hint), 240, placeholder=' ...')}"
        print(textwrap.fill(said, WIDTH, subsequent_indent="  "), file=stream)


def print_progress(done, total, sub):
    """One line on stderr a finished submission, when stderr is a terminal."""
    if sys.stderr.isatty():
        print(f"\r[{done}/{total}] {sub.path[-60:]:<60}", end="" if done < total else "\n", file=sys.stderr,
              flush=True)


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stdout.flush()
    os._exit(judge_main(sys.argv[1:]))
