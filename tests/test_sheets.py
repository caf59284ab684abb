"""Every `tfgraphs` command the lab sheets, the docs and README.md give is accepted, and the output a sheet quotes is
what the tool prints.

A command is taken from a ```console block's `$ tfgraphs ...` line, a lesson's `<!-- lesson: tfgraphs ... -->`, an
inline code span `` `tfgraphs ...` ``, a ```sh line and a `!tfgraphs ...` notebook line. Accepted means: it parses,
and the command's own checks of its values pass, up to where its work would start (a worker, a watched script, a
lab's checks, a server), which is stopped there. A span of a command's name alone, or its name and one bare flag
(`tfgraphs compare --target`), names it: the command must have that flag. A sheet's inline `--flag VALUE` must be
accepted by a command that has the flag. Files the reader makes (graph.pb, lab4/starter.py, SCRIPT) are made here,
small. A console block whose output ends `(exit status 2)` shows a refusal on purpose: that command must be refused.

A sheet quotes output only in a ```console block under its `$ tfgraphs ...` line, made by
scripts/regenerate_docs.py. Each quoted line, numbers masked, must be in what the command prints now, but for the
line naming the TensorFlow, Python and CPU it ran on; a block made with another TensorFlow is not compared.
"""

import argparse
import importlib.util
import re
import shlex
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import run_main
from owngraphs import lookup, mixed
from tfgraphs.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "tfgraphs" / "labs" / "course"
SHEETS = [COURSE / "README.md", *sorted(COURSE.glob("*/README.md"))]
# docs/findings.md quotes sentence templates, whose {placeholders} are no commands to run.
PAGES = [*SHEETS, ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "findings.md")]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
SPAN = re.compile(r"(?<!`)`(!?tfgraphs [^`]+)`(?!`)")
COMMENTED = re.compile(r"^<!-- (?:lesson|output): (tfgraphs [^\n]*) -->$", re.M)
BANG = re.compile(r"^\s*!(tfgraphs [^\n`]*)$", re.M)   # a notebook cell's shell command
OPENING = re.compile(r"^( *)```(\w*) *$", re.M)   # a fence's opening or closing line, indented or not
REFUSED = "(exit status 2)"
# Where each command's work starts: reaching one of these, the command has accepted everything it was given.
WORK = ("tfgraphs.jobs.runner.check_memory",     # a measuring command's plan is made and checked: workers come next
        "tfgraphs.jobs.owngraph.INSPECT.run",   # inspect reads the graph
        "tfgraphs.labs.checking.collect",       # lab check runs the student's code
        "tfgraphs.processes.start")             # server starts TensorFlow's server
OUTPUT_FLAGS = ("-o", "--json", "--csv", "--plot", "--strip-constants", "--trace", "--tensorboard")
# What a metavariable of a synopsis stands for here.
METAVARS = {"N": "1", "FOLDER": "lab1", "COMMAND": "compare", "HOST": "127.0.0.1", "OUT": "out", "DIR": "dir", "SCRIPT": "script.py",
            "S": "60", "ARGS...": None}
FLAGGED = re.compile(r"(?<!`)`(--[a-z][^`]*)`(?!`)")


def commands(page):
    """(command, refused on purpose) for each `tfgraphs ...` command the page gives, in order."""
    text = page.read_text()
    found = [(command.strip(), False) for command in COMMENTED.findall(text) + BANG.findall(text)]
    for kind, body in FENCE.findall(text):
        lines = body.splitlines()
        if kind == "console" and lines and lines[0].startswith("$ tfgraphs "):
            found.append((lines[0][2:], lines[-1].strip() == REFUSED))
        found += [(line.split(" #")[0].strip(), False) for line in lines
                  if kind in ("sh", "bash", "shell") and line.startswith("tfgraphs ")]
    found += [(" ".join(span.lstrip("!").split()), False) for span in SPAN.findall(prose(text))]
    return found


def prose(text):
    """text without its fenced blocks."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def flags_given(page):
    """Each inline `--flag VALUE ...` of the page's prose that gives a value, as its words."""
    spans = (span.split() for span in FLAGGED.findall(prose(page.read_text())))
    return [words for words in spans if any(not word.startswith("--") for word in words)]


GIVEN = [(page.relative_to(ROOT), command, refused) for page in PAGES
         for command, refused in dict.fromkeys(commands(page))]


def subcommands(parser):
    """{name: parser} of parser's subcommands, {} when it has none."""
    actions = [a for a in parser._actions if hasattr(a, "choices") and isinstance(a.choices, dict)]
    return actions[0].choices if actions else {}


def named(argv):
    """The command's parser when argv only names a command (and at most one of its flags, bare), else None."""
    parser, rest = build_parser(), list(argv)
    while rest and rest[0] in subcommands(parser):
        parser = subcommands(parser)[rest.pop(0)]
    if rest == ["..."]:   # `tfgraphs ...`: any command
        return parser
    if parser.prog == "tfgraphs" or len(rest) > 1 or (rest and not rest[0].startswith("--")):
        return None
    if rest:
        assert rest[0] in parser._option_string_actions, f"{parser.prog} has no flag {rest[0]}"
    return parser


class WorkStarts(BaseException):
    """Raised where the command would start its work: main() lets it through, as it would not an Exception."""


def stop(*args, **kwargs):
    """Stands in for the first step of a command's work."""
    raise WorkStarts


@pytest.fixture(scope="module")
def graphs(tmp_path_factory):
    """graphs() -> {file name: a tiny GraphDef with the inputs its page gives it}, made when first asked for."""
    made = {}

    def get():
        if not made:   # importing TensorFlow takes a while: only the commands that read a graph wait for it
            folder = tmp_path_factory.mktemp("graphs")
            made.update({"table.pb": lookup(folder / "table.pb"), "graph.pb": mixed(folder / "graph.pb")})
            made.update({name: images_graph(folder / name, side) for name, side in (("mobilenet.pb", 96),
                                                                                     ("model.pb", 224))})
        return made
    return get


def images_graph(path, side):
    """images [?, side, side, 3] float32 -> the mean of each image."""
    from tfgraphs.tfimport import import_tensorflow

    tf = import_tensorflow()
    graph = tf.Graph()
    with graph.as_default():
        images = tf.compat.v1.placeholder(tf.float32, [None, side, side, 3], name="images")
        tf.reduce_mean(images, axis=[1, 2, 3], name="scores")
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


def real(argv, folder, graphs):
    """argv with its metavariables filled in and every file it reads made in folder."""
    words = []
    for i, word in enumerate(argv):
        word = word.strip("[]") if word.startswith("[") else word
        word = METAVARS.get(word, word)
        if word is None:
            continue
        if word in ("FILE", "PATH"):
            word = "saved.json" if argv[0] == "report" else "lab1/starter.py" if argv[0] == "lab" else "graph.pb"
        if not (i and argv[i - 1] in OUTPUT_FLAGS):
            make_input(folder, word, graphs)
        words.append(word)
    return words


def make_input(folder, name, graphs):
    """The file name in folder, made as the page's reader would have it: a lab's starter, a graph, a script, a JSON."""
    path, lab = folder / name, re.fullmatch(r"lab(\d)/(starter\.(py|ipynb))", name)
    if (ROOT / name).is_dir() and name.startswith("tests/"):   # a class of submissions: the repository's own
        shutil.copytree(ROOT / name, path, dirs_exist_ok=True)
        return
    if re.fullmatch(r"lab\d", name):   # a folder of a class's files
        make_input(folder, f"{name}/starter.py", graphs)
        return
    if path.suffix not in (".pb", ".py", ".ipynb", ".json"):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if lab:
        (source,) = COURSE.glob(f"{lab.group(1)}-*")
        shutil.copy(source / lab.group(2), path)
    elif path.suffix == ".pb":
        shutil.copy(graphs().get(path.name, graphs()["graph.pb"]), path)
    elif path.suffix == ".py":
        path.write_text("print('trained')\n")
    elif path.suffix == ".json":
        shutil.copy(ROOT / "tests" / "fixtures" / "compare.json", path)


def outcome(argv, capfd, monkeypatch):
    """(exit status, stderr) of `tfgraphs ARGV` up to where its work starts; status 0 once it gets there."""
    for where in WORK:
        monkeypatch.setattr(where, stop)
    # A server the page has the reader start (tfgraphs server) is taken to be there.
    monkeypatch.setattr("tfgraphs.jobs.servers.unreachable", lambda *args: None)
    try:
        proc = run_main(capfd, *argv)
    except WorkStarts:
        return 0, capfd.readouterr().err
    return proc.returncode, proc.stderr


@pytest.mark.parametrize("page, command, refused", GIVEN, ids=[f"{p}: {c}" for p, c, _ in GIVEN])
def test_every_command_given_is_accepted(page, command, refused, graphs, tmp_path, capfd, monkeypatch, regenerated):
    # regenerated: the sheets' commands run meanwhile, in the background.
    argv = shlex.split(command)[1:]
    if not refused and named(argv):
        return
    monkeypatch.chdir(tmp_path)
    status, stderr = outcome(real(argv, tmp_path, graphs), capfd, monkeypatch)
    if refused:
        assert status == 2, f"{page} shows `{command}` refused, but it is accepted"
    else:
        assert status == 0 and "refusing" not in stderr, f"{page}: `{command}` is refused: {stderr.strip()}"


def required(parser):
    """The arguments a command cannot run without, as their metavariables: PATH -o OUT."""
    return [word for action in parser._actions if action.required and action.nargs != argparse.REMAINDER
            for word in [*action.option_strings[-1:], action.metavar or action.dest.upper()]]


FLAGS = [(sheet.relative_to(ROOT), words) for sheet in SHEETS for words in flags_given(sheet)]


@pytest.mark.parametrize("sheet, words", FLAGS, ids=[f"{s}: {' '.join(w)}" for s, w in FLAGS])
def test_flags_a_sheet_gives_are_accepted_by_a_command_that_has_them(sheet, words, graphs, tmp_path, capfd,
                                                                       monkeypatch):
    having = {name: parser for name, parser in subcommands(build_parser()).items()
              if all(word in parser._option_string_actions for word in words if word.startswith("--"))}
    assert having, f"{sheet}: no command has all of {words}"
    monkeypatch.chdir(tmp_path)
    said = [outcome(real([name, *words, *required(parser)], tmp_path, graphs), capfd, monkeypatch)
            for name, parser in having.items()]
    assert any(status == 0 for status, _ in said), f"{sheet}: {' '.join(words)} is refused: {said}"


def test_a_command_the_tool_refuses_is_told_apart(capfd, monkeypatch):
    status, stderr = outcome(["shapes", "--count", "2", "--start", "1025"], capfd, monkeypatch)
    assert status == 2 and stderr.startswith("tfgraphs: --count 2 must be at least 3"), stderr
    assert outcome(["shapes", "--count", "3", "--start", "1024"], capfd, monkeypatch) == (0, "")


# A number, with the unit of a time after it: the part of a quoted line that changes from run to run.
NUMBER = re.compile(r"[0-9][0-9.,]*(?: ?(?:ns|µs|us|ms|s)\b)?")
# The line naming the TensorFlow (and Python, CPU) a run used: it is the machine's, not the command's.
ENVELOPE = re.compile(r"^TensorFlow ([0-9.]+)\b.*$", re.M)


def masked(text):
    """text as quotes are matched: each number (and time unit) one token, each run of dashes and whitespace one."""
    return " ".join(re.sub("-{3,}", "---", NUMBER.sub("#", text)).split())


def stale(quoted, printed):
    """The lines of quoted output that are not in printed, numbers masked; a line may be wrapped anywhere."""
    said = f" {masked(printed)} "
    return [line for line in quoted.splitlines()
            if line.strip() and not ENVELOPE.match(line) and f" {masked(line)} " not in said]


def console_blocks(text):
    """(command, output) of each ```console block of a page."""
    blocks = [body.split("\n", 1) for kind, body in FENCE.findall(text) if kind == "console"]
    return [(first[2:], rest[0] if rest else "") for first, *rest in blocks]


QUOTING = [sheet for sheet in SHEETS if console_blocks(sheet.read_text())]
regenerator = importlib.util.spec_from_file_location("regenerate_docs", ROOT / "scripts" / "regenerate_docs.py")
regenerate_docs = importlib.util.module_from_spec(regenerator)
regenerator.loader.exec_module(regenerate_docs)


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    """{sheet: a future of its text as scripts/regenerate_docs.py makes it now}, made while the commands are checked."""
    def fresh(sheet):
        copy = tmp_path_factory.mktemp("sheet") / sheet.name
        shutil.copy(sheet, copy)
        regenerate_docs.regenerate(copy, echo=lambda line: None)
        return copy.read_text()

    with ThreadPoolExecutor(max_workers=1) as pool:
        yield {sheet: pool.submit(fresh, sheet) for sheet in QUOTING}


@pytest.mark.parametrize("sheet", QUOTING, ids=[str(s.relative_to(ROOT)) for s in QUOTING])
def test_quoted_output_is_what_the_tool_prints(sheet, regenerated):
    now = console_blocks(regenerated[sheet].result(timeout=600))
    quoted = console_blocks(sheet.read_text())
    assert [command for command, _ in now] == [command for command, _ in quoted]
    for (command, output), (_, printed) in zip(quoted, now):
        made_with, now_with = (ENVELOPE.findall(text)[:1] for text in (output, printed))
        if made_with != now_with:
            pytest.skip(f"`{command}` was quoted from TensorFlow {made_with}, this is {now_with}")
        assert not stale(output, printed), f"`{command}` no longer prints these lines: {stale(output, printed)}"


def test_a_stale_quote_is_reported(regenerated):
    watch = COURSE / "7-watch" / "README.md"
    (printed,) = [out for command, out in console_blocks(regenerated[watch].result(timeout=600))
                  if command.startswith("tfgraphs watch")]
    line = next(line for line in printed.splitlines() if " fed the same " in line)
    assert not stale(re.sub(r"\d+(\.\d+)?", "9.75", line), printed)
    stale_lines = ["starter.py ran to its end (exit status 0): 34 Session.run calls from 3 lines.",
                   "  unchanged): it crossed feed_dict every time."]
    assert stale("\n".join([line, *stale_lines]), printed) == stale_lines


def test_sheets_quote_output_only_in_console_blocks():
    for sheet in SHEETS:
        text = sheet.read_text()
        for indent, kind in OPENING.findall(text)[::2]:
            # scripts/regenerate_docs.py remakes a console block only at the start of a line.
            assert kind in ("sh", "python") or (kind, indent) == ("console", ""), f"{sheet}: a ```{kind} block"
        for command, _ in console_blocks(text):
            assert command.startswith("tfgraphs "), f"{sheet}: $ {command}"


ITEM = re.compile(r"^(?:[-*] |\d+\. )")   # a list item's first line


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_list_begins_after_a_blank_line(page):
    # Python-Markdown, which builds the site, reads a list right under a paragraph's line as that paragraph's text.
    lines = prose(page.read_text()).split("\n")
    glued = [f"{i + 1}: {line[:40]}" for i, (before, line) in enumerate(zip(lines, lines[1:]), 1)
             if ITEM.match(line) and before.strip() and not ITEM.match(before)
             and not before.startswith((" ", "#", "|", "<!--"))]
    assert not glued, f"{page.name}: a list item right under a paragraph: {glued}"

