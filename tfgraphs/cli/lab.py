"""`tfgraphs lab`: list the course labs, copy one out, or check a solution."""

import os

from tfgraphs.cli import Parser, typed
from tfgraphs.spec.common import DAY_S
from tfgraphs.spec.options import Positive, Whole


def add_parser(sub):
    """Add `lab` and its list, start and check to the subcommands."""
    lab = sub.add_parser("lab", help="course labs: list them, start one, or check a solution",
                         description="Check a lab solution: prints each check as ok or WRONG with a hint, and "
                                     "exits 0 only when every check passes. `tfgraphs lab start N` copies lab N out.")
    lab_sub = lab.add_subparsers(dest="lab_command", required=True, parser_class=Parser)
    lab_sub.add_parser("list", help="the labs and what each one is about").set_defaults(func=run_list)
    start = lab_sub.add_parser("start", help="copy lab N's sheet, starter and notebook into DIR")
    start.add_argument("number", type=typed(Whole(), "number"), help="the lab's number")
    start.add_argument("dir", nargs="?", default=None, help="where to put them (default ./labN); existing files "
                                                           "are never overwritten")
    start.set_defaults(func=run_start)
    check = lab_sub.add_parser("check", help="run lab N's checks on your file")
    check.add_argument("number", type=typed(Whole(), "number"), help="the lab's number")
    check.add_argument("path", help="your solution, e.g. lab1/starter.py, or a notebook (lab1/starter.ipynb; "
                                    "needs jupytext)")
    check.add_argument("--timeout", type=typed(Positive(most=DAY_S, unit=" s"), "timeout"), default=60.0,
                       metavar="S", help="seconds each check may take before it counts as WRONG (default 60; at "
                                         f"most {DAY_S:,g}); your code runs in a separate process")
    check.set_defaults(func=run_check)


def run_list(args):
    from tfgraphs.labs import LABS
    for number, title in LABS.items():
        print(f"{number}. {title}")
    print("Start lab N: `tfgraphs lab start N` copies its sheet, starter.py and starter.ipynb into ./labN.")
    print("Check it: `tfgraphs lab check N labN/starter.py`, or run the notebook's last cell.")
    return 0


def run_start(args):
    from tfgraphs.labs.start import start

    for path in start(args.number, args.dir):
        print(path)
    return 0


def run_check(args):
    from tfgraphs.labs.checking import check_lab

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")   # the checks report what matters; TensorFlow's logs do not
    return check_lab(args.number, args.path, timeout_s=args.timeout)
