"""Write docs/findings.md, "What tfgraphs can tell you", from the findings each command declares.

    python scripts/catalogue.py           # rewrite the page
    python scripts/catalogue.py --check   # exit 1 when the page differs from what the declarations give

Every findings module registers its findings with @evidence.finding (evidence.FINDINGS): each kind is listed with
its sentence, its evidence and when it is not said. Findings a page states besides its command's own (compare's
remote rows) are listed by their kinds, fields and what their docstrings say.
"""

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import tfgraphs.findings  # noqa: E402  (the package is found from the repository)
from tfgraphs.api.commands import COMMANDS  # noqa: E402
from tfgraphs.findings.evidence import FINDINGS  # noqa: E402

PAGE = ROOT / "docs" / "findings.md"
# The findings of other modules a command's page states beside its own: compare's page opens with its remote rows'.
ALSO = {"compare": ("remote",)}
HEAD = """# What tfgraphs can tell you

Every command opens its page with an answer of a few lines and ends it with findings: sentences computed from the
run's own numbers. Each finding below has a stable kind (the `kind` of each entry of `findings` in the JSON), the
record fields it rests on (a row lacking one of them never reaches it) and the case where it is not said. In a
sentence, `{name}` stands for a number or a name from the run; `a / b` for wordings chosen by the numbers.

This page is generated from the declarations in `tfgraphs/findings` by `python scripts/catalogue.py`; a test checks
that it matches them.
"""


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


def known_section(findings):
    """Findings registered without a sentence written down: their fields and what their docstrings say."""
    lines = ["Not yet declared as data: the kinds below are known from the fields their sentence functions rest on;"
             " their sentences and the cases where they are not said are not written down yet.", ""]
    for f in sorted(findings, key=lambda f: f.kind):
        lines += [f"- **`{f.kind}`**: {f.about or 'no description'}", f"    - Rests on: {_fields(f.needs)}.", ""]
    return lines


def section(command):
    """One command's part of the page."""
    lines = [f"## {command}", ""] + declared_section(FINDINGS[command])
    for other in ALSO.get(command, ()):
        own = [f for f in FINDINGS[other] if f.kind.split(".", 1)[0] == other]
        lines += [f"### Also on this page ({other})", ""] + known_section(own)
    return lines


def commands():
    """The registry's commands whose pages state findings, in its order, every findings module imported."""
    for module in pkgutil.iter_modules(tfgraphs.findings.__path__):
        importlib.import_module(f"tfgraphs.findings.{module.name}")
    return [name for name in COMMANDS if FINDINGS.get(name)]


def catalogue():
    """The whole page's text, from every findings module's registered findings."""
    lines = [HEAD]
    for command in commands():
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
