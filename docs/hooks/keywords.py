"""MkDocs hook: each `<!-- function: NAME -->` on a page becomes tfgraphs.NAME's heading, signature, summary and the
table of its keywords, read at build time from the registry's function and the options it declares, so the page
cannot disagree with the code."""

import inspect
import re

FUNCTION = re.compile(r"^<!-- function: (\w+) -->$", re.M)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(name):
    """A Markdown table of tfgraphs.NAME's keywords: name, default and what each does, as --help says it."""
    from tfgraphs.api.commands import COMMANDS
    from tfgraphs.api.commands import FUNCTIONS
    from tfgraphs.spec.options import REQUIRED

    command = COMMANDS[name]
    named = {"figure": command.shows, "lines": command.lines.each if command.lines else None}
    rows = ["| keyword | default | what it does |", "| --- | --- | --- |"]
    for keyword, option in FUNCTIONS[name].options.items():
        default = "required" if option.default is REQUIRED else option.shown or repr(option.default)
        rows.append(f"| `{keyword}` | {_cell(default)} | {_cell(option.help.format(**named))} |")
    return "\n".join(rows)


def function(name):
    """tfgraphs.NAME as the page shows it: a heading, its signature, its one-line summary and its keywords."""
    from tfgraphs.api.commands import FUNCTIONS

    made = FUNCTIONS[name]
    return "\n\n".join([f"### tfgraphs.{name}", f"```python\ntfgraphs.{name}{inspect.signature(made)}\n```",
                        made.__doc__.splitlines()[0], table(name)])


def on_page_markdown(markdown, page, config, files):
    """Replace every function marker with its entry."""
    return FUNCTION.sub(lambda m: function(m.group(1)), markdown)
