"""The subcommands of the command line alone, with no Python API function: `lab` (list the course labs, copy one
out, or check a solution), `report` (re-render a saved JSON document, or compare two, without TensorFlow) and
`server` (one tf.distribute.Server for a lab or a second machine, until Ctrl-C or SIGTERM)."""

import json
import os
import socket
import subprocess
import sys

from tfgraphs.api.commands import COMMANDS, report
from tfgraphs.api.outputs import table_format
from tfgraphs.cli import SHAPE, Parser, add_format_flags, text_width, typed
from tfgraphs.errors import UsageError
from tfgraphs.labs import DEFAULT_MEMORY_BYTES
from tfgraphs.spec.network import LOOPBACK, ServerTask, cluster_text, parse_cluster
from tfgraphs.spec.options import DAY_S, Positive, Whole, byte_size
from tfgraphs.units import join


def add_parsers(sub):
    """Add `lab`, `report` and `server` to the subcommands."""
    add_lab(sub)
    add_report(sub)
    add_server(sub)


def add_lab(sub):
    """Add `lab` and its list, start, check (one student's file) and grade (a class's files) to the subcommands."""
    lab = sub.add_parser("lab", help="course labs: list them, start one, check a solution, or grade a class",
                         description="Check a lab solution: prints each check as ok or WRONG with a hint, and "
                                     "exits 0 only when every check passes. `tfgraphs lab start N` copies lab N out; "
                                     "`tfgraphs lab grade N FOLDER` grades a class.")
    lab_sub = lab.add_subparsers(dest="lab_command", required=True, parser_class=Parser)
    lab_sub.add_parser("list", help="the labs and what each one is about").set_defaults(func=run_lab_list)
    start = lab_sub.add_parser("start", help="copy lab N's sheet, starter and notebook into DIR")
    start.add_argument("number", type=typed(Whole(), "number"), help="the lab's number")
    start.add_argument("dir", nargs="?", default=None, help="where to put them (default ./labN); existing files "
                                                           "are never overwritten")
    start.set_defaults(func=run_lab_start)
    check = lab_sub.add_parser("check", help="run lab N's checks on your file",
                               description="Each check of lab N on your file as ok or WRONG with a hint. Exits 0 "
                                           "only when every check passes.")
    check.add_argument("number", type=typed(Whole(), "number"), help="the lab's number")
    check.add_argument("path", help="your solution, e.g. lab1/starter.py, or a notebook (lab1/starter.ipynb; needs "
                                    "jupytext)")
    add_limits(check)
    check.set_defaults(func=run_lab_check)
    grade = lab_sub.add_parser("grade", help="grade a class: every file of a folder, one row each",
                               description="Every .py and .ipynb given, or under a folder given, judged as `lab "
                                           "check` judges it, each in a process of its own, --jobs at a time: the "
                                           "class's count and summary, then one row a submission. Exits 0 only when "
                                           "every check of every file passes.")
    grade.add_argument("number", type=lab_number, help="the lab's number, or `all`: each file against the lab its "
                                                       "name or folder names (lab3.py, lab3/, 3-bloat/)")
    grade.add_argument("path", nargs="+", help="folders of submissions (every .py and .ipynb below them), or files")
    add_limits(grade)
    grade.add_argument("--jobs", type=typed(Whole(most=64), "jobs"), default=None, metavar="K",
                       help="submissions judged at a time (default: the cores, here "
                            f"{os.cpu_count() or 1}; at most 64)")
    grade.add_argument("--json", metavar="FILE", help="write one record a submission (each check's outcome and "
                                                      "hint, time, status) to FILE; where FILE holds earlier grades, "
                                                      "a submission whose bytes have not changed keeps its row")
    grade.add_argument("--regrade", action="store_true", help="judge every submission again, changed or not")
    grade.add_argument("--csv", metavar="FILE", help="write a gradebook to FILE: one row a submission, a column a "
                                                     "check (1 passed, 0 failed), its time and why it failed")
    grade.add_argument("--gradescope", metavar="FILE", help="write one submission's results to FILE as Gradescope's "
                                                            "results.json (a point a check)")
    grade.set_defaults(func=run_lab_grade)


def add_limits(parser):
    """Add --timeout and --memory, the limits of each check, to lab check or lab grade."""
    parser.add_argument("--timeout", type=typed(Positive(most=DAY_S, unit=" s"), "timeout"), default=60.0,
                        metavar="S", help="seconds each check may take before it counts as WRONG (default 60; at "
                                          f"most {DAY_S:,g}); the code runs in a separate process")
    parser.add_argument("--memory", type=typed(byte_size, "memory"), default=DEFAULT_MEMORY_BYTES, metavar="SIZE",
                        help="resident memory the code's processes may hold together in a check before it counts "
                             "as WRONG (default 4 GiB; e.g. 2GiB)")


def limits(args):
    """(--timeout, --memory), or UsageError, before anything starts, for more memory than the machine has."""
    from tfgraphs.machine import available_bytes
    from tfgraphs.units import fmt_bytes

    have = available_bytes()
    if args.memory > have:
        raise UsageError(f"--memory {fmt_bytes(args.memory)} is more than this machine has available "
                         f"({fmt_bytes(have)})")
    return args.timeout, args.memory


def lab_number(text):
    """A lab's number, or "all"."""
    return "all" if text == "all" else typed(Whole(), "number")(text)


def run_lab_list(args):
    from tfgraphs.labs import LABS
    for number, title in LABS.items():
        print(f"{number}. {title}")
    print("Start lab N: `tfgraphs lab start N` copies its sheet, its two starters and course.md into ./labN.")
    print("Check it: `tfgraphs lab check N labN/starter.py`, or run the notebook's last cell.")
    print("Grade a class: `tfgraphs lab grade N FOLDER --csv grades.csv`, or `tfgraphs lab grade all FOLDER`.")
    return 0


def run_lab_start(args):
    from tfgraphs.labs import start

    for path in start(args.number, args.dir):
        print(path)
    return 0


def run_lab_check(args):
    from tfgraphs.labs.checking import check_lab

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # the checks report what matters; TensorFlow's logs do not
    if os.path.isdir(args.path):
        raise UsageError(f"{args.path} is a folder: `tfgraphs lab grade {args.number} {args.path}` grades every "
                         f"file in it")
    timeout_s, memory_bytes = limits(args)
    return check_lab(args.number, args.path, timeout_s=timeout_s, memory_bytes=memory_bytes)


def run_lab_grade(args):
    import time

    from tfgraphs.api.outputs import writable
    from tfgraphs.fileio import write_doc
    from tfgraphs.labs import grading

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # each row says what matters; TensorFlow's logs do not
    subs = grading.submissions(args.number, args.path)
    writable(inputs=args.path, json=args.json, csv=args.csv, gradescope=args.gradescope)
    if args.gradescope and len(subs) != 1:
        raise UsageError(f"--gradescope writes one submission's results.json, and {len(subs)} were given")
    checked = limits(args)
    earlier = grading.earlier(args.json, checked) if args.json and not args.regrade else {}
    jobs = args.jobs or os.cpu_count() or 1
    start = time.perf_counter()
    grading.grade(subs, checked, jobs, progress=grading.print_progress, earlier=earlier)
    seconds = time.perf_counter() - start
    if args.json:
        write_doc(grading.document(subs, seconds, jobs, checked), args.json)
    if args.csv:
        grading.write_csv(subs, args.csv)
    if args.gradescope:
        grading.write_gradescope(subs, args.gradescope)
    return grading.report(subs, seconds, jobs)


def add_report(sub):
    """Add `report` to the subcommands."""
    r = sub.add_parser("report", help="re-render a saved JSON report, or compare two (no TensorFlow needed)",
                       description=f"Print the tables and explanations of a file written with --json by "
                                   f"{join(COMMANDS)}, without running anything. Given two files of "
                                   f"{join(c.name for c in COMMANDS.values() if c.comparable)}, print A, B and B/A "
                                   f"per row and phase instead.")
    r.add_argument("path", nargs="+", metavar="PATH", help="one JSON file written with --json, or two to compare")
    add_format_flags(r)
    r.epilog = SHAPE
    r.set_defaults(func=run_report)


def run_report(args):
    """Print one saved document's page, or two compared."""
    table_format(args.format)
    if len(args.path) > 2:
        raise UsageError(f"report takes one file, or two to compare, not {len(args.path)}")
    found = [report(path) for path in args.path]
    if len(found) == 1:
        text = found[0].text(args.format, text_width(args), verbose=args.verbose)
    else:
        comparable = [c.name for c in COMMANDS.values() if c.comparable]
        if found[0].command == found[1].command and found[0].command not in comparable:
            raise UsageError(f"report A B compares {', '.join(comparable)} results, not {found[0].command}")
        from tfgraphs.render.network import render_versus

        text = render_versus(*(f.result for f in found), args.path, args.format, text_width(args))
    sys.stdout.write(text)
    return 0


def add_server(sub):
    """Add `server` to the subcommands."""
    s = sub.add_parser("server", help="start a TensorFlow gRPC server and print its target",
                       description="Start one tf.distribute.Server, print the grpc:// target to give "
                                   "`compare --target`, and serve until Ctrl-C or SIGTERM. TensorFlow's server "
                                   "listens on every interface of this machine, not only 127.0.0.1: anyone who "
                                   "reaches the port can run graphs in it. `compare --target local` instead starts "
                                   "its servers in a network namespace of their own, reachable only from inside.")
    s.add_argument("--port", type=typed(Whole(most=65535), "port"),
                   help="the port to listen on, on every interface; the target printed is 127.0.0.1:PORT (default: a "
                        "free one)")
    s.add_argument("--cluster", metavar="SPEC",
                   help="the whole cluster, JOB=HOST:PORT[,HOST:PORT...][;JOB=...], e.g. "
                        "ps=10.0.0.1:2222;worker=10.0.0.2:2222 (instead of --port)")
    s.add_argument("--job", default="local", help="this server's job in --cluster (default local)")
    s.add_argument("--task", type=typed(Whole(least=0), "task"), default=0,
                   help="this server's task index in its job (default 0)")
    s.set_defaults(func=run_server)


def server_task(args):
    """The server task the flags ask for; UsageError for a cluster that does not hold --job and --task."""
    from tfgraphs.jobs import servers

    if args.cluster and args.port:
        raise UsageError("give --port or --cluster, not both")
    if not args.cluster:
        return ServerTask(cluster=cluster_text({args.job: f"{LOOPBACK}:{args.port or servers.free_port()}"}),
                          job=args.job, task=args.task)
    cluster = parse_cluster(args.cluster)
    if args.job not in cluster or args.task >= len(cluster[args.job]):
        raise UsageError(f"--job {args.job} --task {args.task} is not in --cluster {args.cluster}")
    return ServerTask(cluster=args.cluster, job=args.job, task=args.task)


def _free(cluster, job, index):
    """Refuse, in one line, a port of this task that something on this machine already listens on."""
    address = parse_cluster(cluster)[job][index]
    port_number = int(address.rsplit(":", 1)[1])
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("", port_number))
        except OSError as exc:
            raise UsageError(f"port {port_number} cannot be served: {exc.strerror}") from None
    return port_number


def run_server(args):
    """Run the server in its own process, print its target, and end it by its pid on Ctrl-C or SIGTERM."""
    from tfgraphs import processes
    from tfgraphs.jobs import servers
    from tfgraphs.processes import to_argv

    served = server_task(args)
    port_number = _free(served.cluster, served.job, served.task)
    print(f"tfgraphs server: TensorFlow listens on every interface (0.0.0.0:{port_number}), not only {LOOPBACK}; "
          f"for servers only this machine can reach, use `compare --target local`", file=sys.stderr, flush=True)
    proc = processes.start([sys.executable, *to_argv(served)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        if not line:
            return proc.wait() or 1
        print(f"serving {json.loads(line)['target']} (pid {proc.pid}); Ctrl-C stops it", flush=True)
        proc.wait()
        return proc.returncode
    except KeyboardInterrupt:
        print("stopped", flush=True)
        return 0
    finally:
        servers.stop([proc])
