"""Write docs/findings.md, "What tfgraphs can tell you", from the findings each command declares.

    python scripts/catalogue.py           # rewrite the page
    python scripts/catalogue.py --check   # exit 1 when the page differs from what the declarations give

Every command's findings module declares them as data (DECLARED, a tuple of evidence.Finding): each kind is listed
with its sentence, its evidence and when it is not said. Sentence functions a page reaches besides its command's
declarations (compare's remote rows) are listed by the kinds they rest on (evidence.RESTS_ON), as far as they are
known: their fields and what their docstrings say.
"""

import argparse
import ast
import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tfgraphs.findings.evidence import ABOUT, RESTS_ON  # noqa: E402  (the package is found from the repository)

PAGE = ROOT / "docs" / "findings.md"
# The commands whose pages state findings, each explained by tfgraphs/findings/NAME.py and rendered by
# tfgraphs/render/NAME.py, in the order of the lessons.
COMMANDS = ("compare", "explain", "sweep", "shapes", "pitfalls", "watch", "inspect", "unembed")
HEAD = """# What tfgraphs can tell you

Every command opens its page with an answer of a few lines and ends it with findings: sentences computed from the
run's own numbers. Each finding below has a stable kind (the `kind` of each entry of `findings` in the JSON), the
record fields it rests on (a row lacking one of them never reaches it) and the case where it is not said. In a
sentence, `{name}` stands for a number or a name from the run; `a / b` for wordings chosen by the numbers.

This page is generated from the declarations in `tfgraphs/findings` by `python scripts/catalogue.py`; a test checks
that it matches them.
"""


def findings_imports(path):
    """The tfgraphs.findings modules a source file imports, by their short names."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module == "tfgraphs.findings":
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tfgraphs.findings."):
            found.add(node.module.rsplit(".", 1)[-1])
    return found


def reached(path):
    """The findings modules reached from a source file through findings imports, transitively."""
    seen, todo = set(), set(findings_imports(path))
    while todo:
        name = todo.pop()
        source = ROOT / "tfgraphs" / "findings" / f"{name}.py"
        if name in seen or not source.exists():
            continue
        seen.add(name)
        todo |= findings_imports(source)
    return seen


def _fields(names):
    return ", ".join(f"`{n}`" for n in names) or "no field (said of the run as a whole)"


def declared_section(declared):
    """The answer block's kinds, then the findings', each with its sentence, evidence and when it is not said."""
    lines = []
    for title, headline in (("In the answer block", True), ("Among the findings", False)):
        kinds = [f for f in declared if f.headline is headline]
        if kinds:
            lines += [f"### {title}", ""]
        for f in kinds:
            lines += [f"- **`{f.kind}`**: {f.template}", f"    - Rests on: {_fields(f.needs)}.",
                      f"    - Not said when {f.unless}." if f.unless else "    - Said of every run that holds it.", ""]
    return lines


def known_section(modules):
    """The kinds of sentence functions outside the declarations: their fields and what their docstrings say."""
    lines = ["Not yet declared as data: the kinds below are known from the fields their sentence functions rest on;"
             " their sentences and the cases where they are not said are not written down yet.", ""]
    for kind in sorted(k for k in RESTS_ON if k.split(".", 1)[0] in modules):
        lines += [f"- **`{kind}`**: {ABOUT.get(kind) or 'no description'}",
                  f"    - Rests on: {_fields(RESTS_ON[kind])}.", ""]
    return lines


def section(command):
    """One command's part of the page."""
    render = ROOT / "tfgraphs" / "render" / f"{command}.py"
    own = importlib.import_module(f"tfgraphs.findings.{command}")
    modules = reached(render)
    for name in modules:
        importlib.import_module(f"tfgraphs.findings.{name}")
    lines = [f"## {command}", ""] + declared_section(own.DECLARED)
    # Modules the page reaches besides the declared ones (compare's remote rows, for one) keep their own kinds.
    rest = modules - reached(ROOT / "tfgraphs" / "findings" / f"{command}.py") - {command}
    if any(k.split(".", 1)[0] in rest for k in RESTS_ON):
        lines += [f"### Also on this page ({', '.join(sorted(rest))})", ""] + known_section(rest)
    return lines


def catalogue():
    """The whole page's text."""
    lines = [HEAD]
    for command in COMMANDS:
        lines += section(command)
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the page is up to date")
    args = parser.parse_args(argv)
    text = catalogue()
    if args.check:
        return 0 if PAGE.read_text() == text else 1
    PAGE.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
