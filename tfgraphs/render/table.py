"""Tables of cells already formatted, fitted to a width by splitting whole columns into parts that repeat the keys."""

import textwrap
from dataclasses import dataclass

from tabulate import tabulate


@dataclass(frozen=True)
class Table:
    """Headers (all empty: none shown) and rows of text cells (None shows as '-'); the first `keys` columns name a
    row, stay left and are repeated in every part."""

    headers: tuple
    rows: tuple
    keys: int = 1
    wrap: tuple = ()   # (column, most characters) pairs: text columns whose cells may be folded onto more lines


def _fold(cell, most):
    # tabulate's own maxcolwidths reparses cells as numbers, so long text is folded here.
    if cell is None or most is None or len(cell) <= most:
        return cell
    return "\n".join(textwrap.wrap(cell, most, break_on_hyphens=False))


def _text(table, columns, fmt):
    folds = dict(table.wrap)
    headers = [table.headers[c] for c in columns] if any(table.headers) else ()
    rows = [[_fold(row[c], folds.get(c)) for c in columns] for row in table.rows]
    return tabulate(rows, headers, tablefmt=fmt, missingval="-", disable_numparse=True,
                    colalign=["left" if c < table.keys else "right" for c in columns])


def _width(text):
    return max((len(line) for line in text.splitlines()), default=0)


def render_table(table, fmt, width=None):
    """The table in any tabulate format; wider than width, it becomes parts of whole columns, each with the keys."""
    keys = list(range(table.keys))
    rest = list(range(table.keys, len(table.headers)))
    whole = _text(table, keys + rest, fmt)
    if width is None or _width(whole) <= width:
        return whole
    parts, current = [], []
    for column in rest:
        if current and _width(_text(table, keys + current + [column], fmt)) > width:
            parts.append(current)
            current = []
        current.append(column)
    parts.append(current)
    return "\n\n".join(_text(table, keys + part, fmt) for part in parts)
