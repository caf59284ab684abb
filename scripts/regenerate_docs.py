"""Re-run every command shown in the docs and paste its real output under it.

    python scripts/regenerate_docs.py                 # README.md and every page under docs/ (a long run: the seed-size benchmarks)
    python scripts/regenerate_docs.py docs/compare.md # one page
    python scripts/regenerate_docs.py --list          # the commands, without running them

A block to regenerate is a ```console fence whose first line is `$ tfgraphs ...`; everything after that line is
replaced by what the command printed on stdout (and on stderr when it exits non-zero). A lesson block, between
`<!-- lesson: tfgraphs ... -->` and `<!-- end lesson -->`, is made from one run of its command: the answer, the
figure (docs/img/PAGE-N.png) and the key tables as Markdown. The whole output of that run goes, folded away, into
the page's `<!-- output: tfgraphs ... -->` block of the same command, which a lesson puts after its method; without
one it ends the lesson block. A page's ```python blocks run first, in order, in the same scratch folder as its
commands, so a command can read a file a block wrote.

    python scripts/regenerate_docs.py --lessons docs/compare.md   # only the lesson blocks
"""

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

BLOCK = re.compile(r"^```console\n\$ (tfgraphs [^\n]*)\n.*?^```$", re.M | re.S)
PYTHON = re.compile(r"^```python\n(.*?)^```$", re.M | re.S)
LESSON = re.compile(r"^<!-- lesson: (tfgraphs [^\n]*) -->\n.*?^<!-- end lesson -->$", re.M | re.S)
OUTPUT = re.compile(r"^<!-- output: (tfgraphs [^\n]*) -->\n.*?^<!-- end output -->$", re.M | re.S)
ROOT = Path(__file__).resolve().parent.parent


def commands(text):
    """The tfgraphs commands of a page's lesson and console blocks, in order."""
    return [m.group(1) for m in LESSON.finditer(text)] + [m.group(1) for m in BLOCK.finditer(text)]


def run(command, cwd, extra=()):
    """Run one `tfgraphs ...` command quietly in cwd; return what to paste under it."""
    argv = shlex.split(command)
    extra = [*extra, *(["--quiet"] if _takes_quiet(argv) else [])]
    # Right after the command's name: watch passes whatever follows its SCRIPT on to the script.
    proc = subprocess.run([sys.executable, "-m", "tfgraphs", argv[1], *extra, *argv[2:]], capture_output=True,
                          text=True, cwd=cwd)
    out = proc.stdout
    if proc.returncode != 0:
        out += proc.stderr + f"(exit status {proc.returncode})\n"
    return out


def _takes_quiet(argv):
    """True for a command that measures, whose progress lines --quiet silences."""
    from tfgraphs.api.commands import COMMANDS

    return len(argv) > 1 and argv[1] in COMMANDS and COMMANDS[argv[1]].progress


def lesson(command, cwd, path, n):
    """(the lesson block from one run: the answer, its figure and key tables as Markdown; that run's whole output,
    folded)."""
    from tfgraphs.api.commands import COMMANDS
    from tfgraphs.api.commands import render, report

    # Absolute: the command runs in the scratch folder, the image belongs beside the page.
    saved, image = Path(cwd) / f"lesson-{n}.json", path.resolve().parent / "img" / f"{path.stem}-{n}.png"
    image.parent.mkdir(exist_ok=True)
    figured = COMMANDS[shlex.split(command)[1]].figure is not None
    out = run(command, cwd, ["--json", str(saved), *(["--plot", str(image)] if figured else [])])
    whole = "\n".join(f"    {line}" if line else "" for line in f"```console\n$ {command}\n{out}```".splitlines())
    fold = f'??? example "The whole output of `{command}`"\n\n{whole}\n'
    if not saved.exists():
        return f"<!-- lesson: {command} -->\n```console\n$ {command}\n{out}```\n", fold
    title = f"![The figure of {command}, drawn from this run](img/{image.name})" if figured else None
    body = render(report(saved).result, "markdown", None, figure=title)
    return f"<!-- lesson: {command} -->\n{body}", fold


def regenerate(path, echo=print, lessons_only=False):
    """Rewrite one page in place with fresh output for every lesson and console block (only the lesson blocks
    when lessons_only)."""
    text = path.read_text()
    placed = set(OUTPUT.findall(text))
    with tempfile.TemporaryDirectory() as scratch:
        for code in PYTHON.findall(text):
            subprocess.run([sys.executable, "-c", code], cwd=scratch, check=True, capture_output=True)
        made, folds = iter(range(1, 1000)), {}

        def fresh(match):
            echo(f"{path.name}: $ {match.group(1)}")
            return f"```console\n$ {match.group(1)}\n{run(match.group(1), scratch)}```"

        def fresh_lesson(match):
            echo(f"{path.name}: lesson $ {match.group(1)}")
            block, folds[match.group(1)] = lesson(match.group(1), scratch, path, next(made))
            tail = "" if match.group(1) in placed else f"\n{folds[match.group(1)]}"
            return f"{block}{tail}<!-- end lesson -->"

        def fresh_output(match):
            fold = folds.get(match.group(1))
            return match.group(0) if fold is None else f"<!-- output: {match.group(1)} -->\n{fold}<!-- end output -->"

        new = OUTPUT.sub(fresh_output, LESSON.sub(fresh_lesson, text))
        new = new if lessons_only else BLOCK.sub(fresh, new)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(new)
    tmp.replace(path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pages", nargs="*", type=Path, help="pages to regenerate (default: README.md and every docs/*.md)")
    p.add_argument("--list", action="store_true", help="print the commands without running them")
    p.add_argument("--lessons", action="store_true", help="regenerate only the lesson blocks")
    args = p.parse_args(argv)
    pages = args.pages or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = [str(page) for page in pages if not page.is_file()]
    if missing:
        p.error(f"no such page: {', '.join(missing)} (give its path, e.g. docs/compare.md)")
    for page in pages:
        if args.list:
            for command in commands(page.read_text()):
                print(f"{page.name}: $ {command}")
        else:
            regenerate(page, echo=lambda line: print(line, file=sys.stderr, flush=True), lessons_only=args.lessons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
