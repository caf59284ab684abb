"""Regenerate every lab's starter.ipynb from its starter.py (the source), with jupytext.

    pip install -e '.[notebooks]'
    python scripts/make_notebooks.py            # rewrites the notebooks that differ, names them
    python scripts/make_notebooks.py --check    # exit 1 and name the notebooks that are out of date
"""

import sys
from pathlib import Path

from tfgraphs.labs.notebook import notebook_text

COURSE = Path(__file__).resolve().parent.parent / "tfgraphs" / "labs" / "course"


def stale():
    """{notebook path: its up-to-date text} for every lab whose notebook differs from its starter.py."""
    out = {}
    for script in sorted(COURSE.glob("*/starter.py")):
        notebook = script.with_suffix(".ipynb")
        text = notebook_text(script)
        if not notebook.exists() or notebook.read_text(encoding="utf-8") != text:
            out[notebook] = text
    return out


def main(argv):
    changed = stale()
    for notebook, text in changed.items():
        if "--check" not in argv:
            notebook.write_text(text, encoding="utf-8")
        print(f"{'out of date' if '--check' in argv else 'wrote'}: {notebook.relative_to(COURSE.parent.parent.parent)}")
    return 1 if changed and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
