"""Re-run every command shown in the docs and paste its real output under it.

    python scripts/regenerate_docs.py                 # README.md and every page under docs/ (a long run: the seed-size benchmarks)
    python scripts/regenerate_docs.py docs/compare.md # one page
    python scripts/regenerate_docs.py --list          # the commands, without running them

A block to regenerate is a ```console fence whose first line is `$ tfgraphs ...`; everything after that line is
replaced by what the command printed on stdout (and on stderr when it exits non-zero). A page's ```python blocks run
first, in order, in the same scratch folder as its commands, so a command can read a file a block wrote.
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
ROOT = Path(__file__).resolve().parent.parent


def commands(text):
    """The tfgraphs commands of a page's console blocks, in order."""
    return [m.group(1) for m in BLOCK.finditer(text)]


def run(command, cwd):
    """Run one `tfgraphs ...` command quietly in cwd; return what to paste under it."""
    argv = shlex.split(command)
    extra = ["--quiet"] if _takes_quiet(argv) else []
    proc = subprocess.run([sys.executable, "-m", "tfgraphs", *argv[1:], *extra], capture_output=True, text=True,
                          cwd=cwd)
    out = proc.stdout
    if proc.returncode != 0:
        out += proc.stderr + f"(exit status {proc.returncode})\n"
    return out


def _takes_quiet(argv):
    return len(argv) > 1 and argv[1] in ("compare", "explain", "sweep", "shapes", "unembed")


def regenerate(path, echo=print):
    """Rewrite one page in place with fresh output for every console block."""
    text = path.read_text()
    with tempfile.TemporaryDirectory() as scratch:
        for code in PYTHON.findall(text):
            subprocess.run([sys.executable, "-c", code], cwd=scratch, check=True, capture_output=True)

        def fresh(match):
            echo(f"{path.name}: $ {match.group(1)}")
            return f"```console\n$ {match.group(1)}\n{run(match.group(1), scratch)}```"

        new = BLOCK.sub(fresh, text)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(new)
    tmp.replace(path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pages", nargs="*", type=Path, help="pages to regenerate (default: README.md and every docs/*.md)")
    p.add_argument("--list", action="store_true", help="print the commands without running them")
    args = p.parse_args(argv)
    pages = args.pages or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        if args.list:
            for command in commands(page.read_text()):
                print(f"{page.name}: $ {command}")
        else:
            regenerate(page, echo=lambda line: print(line, file=sys.stderr, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
