"""The docs stay true: their Python runs, their commands parse, their links resolve, the site builds.

The Python blocks run in one interpreter forked for them from the session's server, which imported TensorFlow; each
block runs in a namespace of its own and in its test's folder, its output kept apart. The site is built by mkdocs, once
for this file and test_site (built_site).
"""

import json
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfgraphs import processes
from tfgraphs.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "tfgraphs" / "labs" / "course"
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md", *sorted(COURSE.glob("**/*.md"))]
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)
TINY = {"BATCH": 20, "LENGTH": 64, "COUNT": 3}


def blocks(page, lang):
    return [body for kind, body in FENCE.findall(page.read_text()) if kind == lang]


def tiny(code):
    """The block with its size constants shrunk, so the suite stays fast."""
    for name, value in TINY.items():
        code = re.sub(rf"^{name} = \d+", f"{name} = {value}", code, flags=re.M)
    return code


PYTHON = [(page.name, i, code) for page in PAGES for i, code in enumerate(blocks(page, "python"))]


def _block_runner():
    """forking/doc_blocks.py forked from the session's server, which imported TensorFlow (a fresh one elsewhere)."""
    argv, options = [sys.executable, "-m", "doc_blocks"], dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                               stderr=subprocess.DEVNULL, text=True)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}   # the server's log level, and the session's servers
    try:
        server = processes.connect(os.path.join(os.environ[processes.SERVERS], processes.key(env) + ".sock"))
        return processes.Forked(server, argv, env=env, **options)
    except (KeyError, OSError, RuntimeError):
        return subprocess.Popen(argv, **options)


class BlockRunner:
    """One interpreter that runs block after block; started again if a block ends it."""

    def __init__(self):
        self.proc = None

    def run(self, code, cwd, timeout):
        """(exit status, the end of stderr) of the block run in cwd."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = _block_runner()
        self.proc.stdin.write(json.dumps({"code": code, "cwd": str(cwd)}) + "\n")
        self.proc.stdin.flush()
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            self.close()
            return None, f"did not finish within {timeout} s"
        reply = self.proc.stdout.readline()
        if not reply:
            return self.proc.wait(), "the interpreter running the blocks ended"
        reply = json.loads(reply)
        return reply["status"], reply["stderr"]

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def block_runner():
    runner = BlockRunner()
    yield runner
    runner.close()


@pytest.mark.parametrize("page, index, code", PYTHON, ids=[f"{p}-{i}" for p, i, _ in PYTHON])
def test_python_blocks_run(page, index, code, tmp_path, block_runner):
    status, stderr = block_runner.run(tiny(code), tmp_path, timeout=300)
    assert status == 0, stderr


def test_every_page_has_something_to_run():
    for name in ("compare.md", "explain.md", "graph-bloat.md", "shapes.md", "pitfalls.md", "remote.md"):
        page = ROOT / "docs" / name
        assert (blocks(page, "console") or "<!-- lesson: tfgraphs " in page.read_text()) and blocks(page, "python"), name


CONSOLE = [(page.name, body.splitlines()[0]) for page in PAGES for body in blocks(page, "console")]


@pytest.mark.parametrize("page, line", CONSOLE)
def test_console_commands_parse(page, line):
    assert line.startswith("$ tfgraphs "), (page, line)
    build_parser().parse_args(shlex.split(line)[2:])


def test_console_blocks_hold_real_output():
    for page in (ROOT / "docs").glob("*.md"):
        for body in blocks(page, "console"):
            assert "not run yet" not in body, f"{page.name}: {body.splitlines()[0]} was never run"


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_relative_links_resolve(page):
    for target, _ in LINK.findall(page.read_text()):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to missing {target}"


def test_regenerate_replaces_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Intro.\n\n```console\n$ tfgraphs compare --batch 10 --runs 2 --variants placeholder\nSTALE OUTPUT\n```\n")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "regenerate_docs.py"), str(page)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = page.read_text()
    assert text.startswith("Intro.\n\n```console\n$ tfgraphs compare --batch 10 --runs 2 --variants placeholder\n")
    assert "STALE OUTPUT" not in text and "\nPhases (" in text and "What this run shows:" in text
    assert text.endswith("```\n")


def test_regenerate_makes_a_lesson_and_puts_its_whole_output_where_the_page_asks(tmp_path):
    command = "tfgraphs compare --batch 10 --runs 2 --variants placeholder --trials 1"
    page = tmp_path / "lesson.md"
    page.write_text(f"# L\n\nWhy?\n\n<!-- lesson: {command} -->\nSTALE\n<!-- end lesson -->\n\nMethod.\n\n"
                    f"<!-- output: {command} -->\nSTALE\n<!-- end output -->\n")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "regenerate_docs.py"), "--lessons", str(page)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    text = page.read_text()
    (command_seen, body), = LESSON_BLOCK.findall(text)
    assert command_seen == command and body.startswith('!!! answer "What this run answers"\n\n    ')
    assert "STALE" not in text and "??? example" not in body and (tmp_path / "img" / "lesson-1.png").exists()
    method, fold = text.split("\n\nMethod.\n\n")
    assert fold.startswith(f'<!-- output: {command} -->\n??? example "The whole output of `{command}`"\n\n'
                           f"    ```console\n    $ {command}\n    compare: batch 10,") and fold.endswith(
                           "    ```\n<!-- end output -->\n")


def test_readme_quick_start_matches_ci():
    readme = (ROOT / "README.md").read_text()
    (quick,) = blocks(ROOT / "README.md", "sh")[:1]
    install, test = quick.strip().splitlines()
    assert "scripts/compare_inputs.py" in install and "pip install" in install
    assert test.strip() in (ROOT / ".ci" / "run").read_text()
    assert "docs/index.md" in readme and "tfgraphs/labs/course/README.md" in readme


@pytest.mark.skipif(shutil.which("mkdocs") is None and not Path(sys.executable).with_name("mkdocs").exists(),
                    reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_mkdocs_builds_strict(built_site):
    site, proc = built_site
    assert proc.returncode == 0, proc.stderr
    assert (site / "index.html").is_file() and (site / "search" / "search_index.json").is_file()


LESSONS = ("compare.md", "explain.md", "graph-bloat.md", "shapes.md", "pitfalls.md", "remote.md", "own-graph.md",
           "watch.md")
LESSON_BLOCK = re.compile(r"^<!-- lesson: (tfgraphs [^\n]*) -->\n(.*?)^<!-- end lesson -->$", re.M | re.S)


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_shows_its_answer_its_figure_and_later_its_whole_output_folded(name):
    text = (ROOT / "docs" / name).read_text()
    found = LESSON_BLOCK.findall(text)
    assert found, f"{name} has no lesson block"
    command, body = found[0]
    assert body.startswith('!!! answer "What this run answers"\n\n    '), (name, body[:200])
    image = re.search(r"^!\[[^\]]*\]\((img/[^)]+\.png)\)$", body, re.M)
    assert image and (ROOT / "docs" / image.group(1)).stat().st_size > 10_000, name
    # The question comes before the answer: the title and a sentence or two, nothing else.
    question = text[:text.index("<!-- lesson: ")].strip().split("\n\n")[1:]
    assert len(question) == 1 and "|" not in question[0] and len(question[0].splitlines()) <= 4, (name, question)
    fold = f'<!-- output: {command} -->\n??? example "The whole output of `{command}`"\n\n    ```console\n'
    assert fold in text and text.index(fold) > text.index("<!-- end lesson -->"), name


def test_lessons_are_numbered_alike_in_the_index_the_navigation_and_their_pages():
    index = (ROOT / "docs" / "index.md").read_text()
    listed = re.findall(r"^(\d+)\. \[[^\]]+\]\(([\w-]+\.md)\)", index, re.M)
    nav = re.findall(r'^      - "(\d+)\. [^"]+": ([\w-]+\.md)$', (ROOT / "mkdocs.yml").read_text(), re.M)
    assert listed == nav and [page for _, page in listed] == list(LESSONS)
    for number, page in listed:
        heading = (ROOT / "docs" / page).read_text().splitlines()[0]
        assert heading.startswith(f"# Lesson {number}: "), (page, heading)
