"""Judge a class: `tfgraphs lab grade N FOLDER` (or several files, or `all`), one row a submission, K at a time;
gradebook prints and writes the rows.

    tfgraphs lab grade all subs/ --jobs 2 --json grades.json

Each submission is judged in a process of its own (`python -m tfgraphs.labs.grading N PATH TIMEOUT`), which leads
its own session and runs labs.checking's collect() on it: the student's code in a child with the per-check timeout,
the judging in the judge process, what the code left running ended. That judge hands back one JSON record on stdout;
a judge that crashes, hangs past every check's timeout or sends anything else is a failed row that says so. Judges
and their children fork from one server that imported TensorFlow once (processes), so a submission pays for its own
checks only.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

from tfgraphs import processes, usercode
from tfgraphs.errors import UsageError
from tfgraphs.labs import LABS, known_lab
from tfgraphs.labs.gradebook import fingerprint, lend

SUFFIXES = (".py", ".ipynb")
SKIPPED = (".ipynb_checkpoints", "__pycache__")   # folders a notebook server or Python leaves, never submissions
NAMED = re.compile(r"lab[ _-]?(\d+)", re.IGNORECASE)   # lab3.py, lab_3/, Lab-3.ipynb
COURSE_FOLDER = re.compile(r"^(\d+)-")                 # a copied course folder: 3-bloat/
# The statuses of a row; every one but "passed" fails the class's exit status.
PASSED, FAILED, TIMEOUT, CRASHED, UNUSABLE, UNMATCHED = "passed", "failed", "timeout", "crashed", "unusable", \
    "unmatched"


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

def judged(number, path, timeout_s):
    """The record of lab `number`'s checks on the file at path, as the judge process sends it."""
    from tfgraphs.labs.checking import checks_of, collect, solution_file
    from tfgraphs.labs.notebook import as_script

    ended, checks = [], len(checks_of(number))
    try:
        solution_file(path)
        with as_script(os.path.abspath(path)) as script:
            outcomes = collect(number, script, timeout_s, ended)
    except UsageError as exc:
        return {"usage": str(exc), "checks": checks, "ended": ended}
    return {"outcomes": [asdict(o) for o in outcomes], "checks": checks, "ended": ended}


def judge_main(argv):
    """`python -m tfgraphs.labs.grading N PATH TIMEOUT`: a session of its own, one JSON record on stdout."""
    try:
        os.setsid()
    except OSError:
        pass   # already leads one
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)   # what TensorFlow or a notebook's conversion prints stays out of the record
    record = judged(int(argv[0]), argv[1], float(argv[2]))
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


def grade_one(sub, timeout_s):
    """Judge one submission in its own process and fill in its row."""
    start = time.perf_counter()
    argv = [sys.executable, "-m", "tfgraphs.labs.grading", str(sub.lab), os.path.abspath(sub.path), str(timeout_s)]
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
    from tfgraphs.labs.checking import ENDED, STOPPED

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
    sub.status = (TIMEOUT if first["detail"].startswith(STOPPED) else CRASHED if first["detail"].startswith(ENDED)
                  else FAILED)
    sub.reason = f"{first['name']}: {first['detail']}"


def grade(subs, timeout_s, jobs, progress=None, earlier=None):
    """Judge every submission but those earlier grades ({(name, lab, sha256): record}) lend a row, `jobs` at a
    time; the rows, in the order given."""
    todo = [s for s in lend(subs, earlier or {}) if s.lab is not None]
    for sub in subs:
        if sub.lab is None:
            sub.status, sub.reason = UNMATCHED, "no lab number in its file or folder name (lab3.py, lab3/, 3-bloat/)"
    done = []

    def one(sub):
        grade_one(sub, timeout_s)
        done.append(sub)
        if progress:
            progress(len(done), len(todo), sub)

    with shared_server(), ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(one, todo))
    return subs


if __name__ == "__main__":
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    sys.stdout.flush()
    os._exit(judge_main(sys.argv[1:]))
