"""MkDocs hook: each `<!-- keywords: NAME -->` on a page becomes the table of tfgraphs.NAME's keywords, read at build
time from the options the function declares, so the page cannot disagree with the code."""

import re

KEYWORDS = re.compile(r"^<!-- keywords: (\w+) -->$", re.M)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(name):
    """A Markdown table of tfgraphs.NAME's keywords: name, default and what each does, as --help says it."""
    import tfgraphs
    from tfgraphs.spec.commands import COMMANDS
    from tfgraphs.spec.options import REQUIRED

    command = COMMANDS[name]
    rows = ["| keyword | default | what it does |", "| --- | --- | --- |"]
    for keyword, option in getattr(tfgraphs, name).options.items():
        default = "required" if option.default is REQUIRED else option.shown or repr(option.default)
        said = option.help.format(figure=command.figure, lines=command.lines)
        rows.append(f"| `{keyword}` | {_cell(default)} | {_cell(said)} |")
    return "\n".join(rows)


def on_page_markdown(markdown, page, config, files):
    """Replace every keywords marker with its table."""
    return KEYWORDS.sub(lambda m: table(m.group(1)), markdown)
