"""The page all results render to: a header, titled tables with legends, sentences, failed rows, fitted to a width;
a table wider than the page splits into parts of whole columns that repeat its keys."""

import html
import re
import shutil
import textwrap
from dataclasses import dataclass, replace

from tabulate import tabulate

WIDTH = 100        # columns of text when the output is not a terminal
SHOWN = 8          # findings printed unless verbose; the JSON and --verbose keep every one
MIN_TERMINAL = 80  # a terminal narrower than this still gets 80 columns
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")   # C0 but tab and newline, DEL and C1
_UNITS = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6))


@dataclass(frozen=True)
class Table:
    """Headers (all empty: none shown) and rows of text cells (None shows as '-'); the first `keys` columns name a
    row, stay left and are repeated in every part."""

    headers: tuple
    rows: tuple
    keys: int = 1
    wrap: tuple = ()   # (column, most characters) pairs: text columns whose cells may be folded onto more lines


def _fold_cell(cell, most):
    # tabulate's own maxcolwidths reparses cells as numbers, so long text is folded here.
    if cell is None or most is None or len(cell) <= most:
        return cell
    return "\n".join(textwrap.wrap(cell, most, break_on_hyphens=False))


def _table_text(table, columns, fmt):
    folds = dict(table.wrap)
    headers = [table.headers[c] for c in columns] if any(table.headers) else ()
    rows = [[_fold_cell(row[c], folds.get(c)) for c in columns] for row in table.rows]
    return tabulate(rows, headers, tablefmt=fmt, missingval="-", disable_numparse=True,
                    colalign=["left" if c < table.keys else "right" for c in columns])


def _width(text):
    return max((len(line) for line in text.splitlines()), default=0)


def render_table(table, fmt, width=None):
    """The table in any tabulate format; wider than width, it becomes parts of whole columns, each with the keys."""
    keys = list(range(table.keys))
    rest = list(range(table.keys, len(table.headers)))
    whole = _table_text(table, keys + rest, fmt)
    if width is None or _width(whole) <= width:
        return whole
    parts, current = [], []
    for column in rest:
        if current and _width(_table_text(table, keys + current + [column], fmt)) > width:
            parts.append(current)
            current = []
        current.append(column)
    parts.append(current)
    return "\n\n".join(_table_text(table, keys + part, fmt) for part in parts)


def output_width(stream):
    """The width to fit: the terminal's (at least MIN_TERMINAL) when stream is one, else WIDTH."""
    if stream.isatty():
        return max(MIN_TERMINAL, shutil.get_terminal_size((WIDTH, 24)).columns)
    return WIDTH


def time_unit(values):
    """One unit for a whole table, chosen from the median magnitude of its times."""
    values = sorted(v for v in values if v)
    if not values:
        return _UNITS[1]
    mid = values[len(values) // 2]
    return next((u for u in _UNITS if mid >= u[1]), _UNITS[-1])


def machine_line(results):
    """Where it ran: TensorFlow, Python, CPUs and platform, as every page's header ends."""
    m = results.machine
    return (f"TensorFlow {results.tf_version}, Python {results.python}, {m.get('cpu_count')} x "
            f"{m.get('cpu_model', '?')}, {m.get('platform', '?')}")


def failures(rows, label):
    """Lines naming each failed row and why, as text a terminal prints and does not obey."""
    return [f"FAILED {label(r)}: {r.error}" for r in rows if not r.ok]


def escaped(text):
    """text with every control character but tab and newline (C0, DEL, C1: ESC among them) written as Python writes
    it in a string's repr, e.g. \x1b: an error message or a saved document cannot recolour or rewrite the terminal."""
    return CONTROLS.sub(lambda m: repr(m.group())[1:-1], text)


def _fold(text, width, indent=""):
    """text folded to width (None: left as one line), later lines indented."""
    if width is None:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


class Page(str):
    """A rendered page, and the findings it states (answer lines first), each with its verdicts, for the JSON."""

    def __new__(cls, text, findings=()):
        rendered = super().__new__(cls, text)
        rendered.findings = tuple(findings)
        return rendered

    def __add__(self, other):
        return Page(str(self) + str(other), self.findings + getattr(other, "findings", ()))


def stated(page):
    """The page's findings as JSON: kind, text, the evidence fields and the judge's verdicts of each."""
    return [f.to_dict() if hasattr(f, "to_dict") else {"kind": None, "text": str(f), "evidence": [], "verdicts": []}
            for f in getattr(page, "findings", ())]


def page(head, sections=(), title=None, sentences=(), failed=(), fmt="simple", width=WIDTH, answer=(),
         verbose=True, figure=None):
    """head (None: none, for a part of a page), the answer lines and the figure, each (title, table, legend) section
    whose table is not None, the sentences under title (the first SHOWN unless verbose), then failed: a Page, which
    keeps every finding."""
    # Every field a document holds (an error, a CPU's name, a script's path) is shown, none driving the terminal.
    return Page(escaped(_text(head, sections, title, sentences, failed, fmt, width, answer, verbose, figure)),
                (*answer, *sentences))


def _text(head, sections, title, sentences, failed, fmt, width, answer, verbose, figure):
    """The page's text: see page(); head is text or a Table, a table is a Table, fitted to width, or text already
    rendered; width None leaves every table and line whole; figure is the line naming the figure in text, an <img>
    in HTML. Format "html" gives the same page as HTML, every sentence kept (past SHOWN, folded away)."""
    if fmt == "html":
        return html_page(head, sections, title, sentences, failed, answer, figure)
    if fmt == "markdown":
        return markdown_page(head, sections, title, sentences, failed, answer, figure)
    if isinstance(head, Table):
        head = render_table(head, fmt, width)
    parts = [line for h in head.splitlines() for line in _fold(h, width, "  ")] + [""] if head is not None else []
    opening = [*answer, *([figure] if figure and answer else [])]
    if opening:
        parts += [line for a in opening for line in _fold(a, width, "  ")] + [""]
    for name, table, legend in sections:
        if table is None:
            continue
        body = render_table(table, fmt, width) if isinstance(table, Table) else table
        parts += [name, body] + (_fold(legend, width) if legend else []) + [""]
    if title is not None:
        shown = list(sentences) if verbose else list(sentences)[:SHOWN]
        more = len(sentences) - len(shown)
        notes = [f"{len(shown)} of {len(sentences)}, most important first; --verbose shows all"] if more else []
        notes += [held for held in (verdicts_held(sentences),) if held]
        parts += _fold(title + (f" ({'; '.join(notes)})" if notes else ""), width, "  ")
        parts += [line for s in shown for line in _fold(f"- {s}", width, "  ")] + [""]
    parts += [line for f in failed for line in _fold(f, width, "  ")]
    return "\n".join(parts).rstrip() + "\n"


def verdicts_held(sentences):
    """'12 verdicts, each alone' (each at 5%, no family correction), or, where some were judged in a family (each
    pitfalls lesson's, or the answer's stated again), that a Holm p marks them; '' for none."""
    verdicts = [v for s in sentences for v in getattr(s, "verdicts", ())]
    if not verdicts:
        return ""
    held = f"{len(verdicts)} verdict{'' if len(verdicts) == 1 else 's'}"
    if any(v.family > 1 for v in verdicts):
        return f"{held}, those with a Holm p judged as a family"
    return f"{held}, each alone" if len(verdicts) > 1 else held


def _html_block(table):
    # A browser wraps cells itself: text columns are not folded into lines here.
    if isinstance(table, Table):
        return render_table(replace(table, wrap=()), "html")
    return f"<pre>{html.escape(table)}</pre>"


def html_page(head, sections=(), title=None, sentences=(), failed=(), answer=(), figure=None):
    """The page as HTML: the head, the answer, then its parts, apart by a blank line as in text, so pages can be
    joined; sentences past the first SHOWN are in a <details>."""
    parts = [f'<p class="tfgraphs-answer"><strong>{"<br>".join(html.escape(a) for a in answer)}</strong></p>'] \
        if answer else []
    parts += [figure] if figure else []
    for name, table, legend in sections:
        if table is not None:
            parts += [f"<h4>{html.escape(name)}</h4>", _html_block(table)]
            parts += [f"<p><small>{html.escape(legend)}</small></p>"] if legend else []
    if title is not None:
        items = [f"<li>{html.escape(s)}</li>" for s in sentences]
        held = verdicts_held(sentences)
        parts += [f"<h4>{html.escape(title + (f' ({held})' if held else ''))}</h4>", "<ul>", *items[:SHOWN], "</ul>"]
        if items[SHOWN:]:
            parts += [f"<details><summary>{len(items) - SHOWN} more findings</summary><ul>", *items[SHOWN:],
                      "</ul></details>"]
    parts += [f'<p style="color:#b00">{html.escape(f)}</p>' for f in failed]
    return (_html_block(head) + "\n\n" if head is not None else "") + "\n".join(parts) + "\n"


def markdown_page(head, sections=(), title=None, sentences=(), failed=(), answer=(), figure=None):
    """The page as Markdown for a docs lesson: the answer in an admonition, the figure, the tables as pipe tables with
    their legends, then the findings (past the first SHOWN, left to the full output)."""
    parts = []
    if answer:
        parts += ['!!! answer "What this run answers"', "", *(f"    {a}  " for a in answer), ""]
    parts += [figure, ""] if figure else []
    for name, table, legend in sections:
        if isinstance(table, Table):
            parts += [f"**{name}**", "", render_table(replace(table, wrap=()), "github"), ""]
            parts += [f"<small>{legend}</small>", ""] if legend else []
    if title is not None and sentences:
        held = verdicts_held(sentences)
        parts += [f"**{title}**" + (f" ({held})" if held else ""), "", *(f"- {s}" for s in list(sentences)[:SHOWN]),
                  ""]
    parts += [f"**{f}**" for f in failed]
    return "\n".join(parts).rstrip() + "\n"


def runs_text(c):
    """'10 later runs x 4 trials', or where only the first trials ran later runs, how many did."""
    trials = c.trials
    full = min(c.full_trials, trials)
    if full < trials and not getattr(c, "later_every_trial", False):
        return (f"{trials} trials, the first {full} with {c.runs} later runs" if full > 1 else
                f"{trials} trials, the first with {c.runs} later runs")
    return f"{c.runs} later runs x {trials} trial{'s' if trials != 1 else ''}"
