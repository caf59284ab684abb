"""Report: what a command returns to Python, as rows of plain dicts, text, HTML for Jupyter, a plot and JSON, each
page rendered once however often it is shown or saved."""

import base64

from tfgraphs.api.notebook import show_figures_inline
from tfgraphs.api.outputs import table_format, writable
from tfgraphs.errors import UsageError
from tfgraphs.fileio import write_atomic, write_doc
from tfgraphs.render.page import WIDTH, stated

# Keeps a notebook's page readable: the tables take the page's font, numbers line up, rows are told apart.
_STYLE = ("<style>.tfgraphs-report table{border-collapse:collapse;margin:0.3em 0 0.6em}"
          ".tfgraphs-report td,.tfgraphs-report th{padding:0.15em 0.6em;border-bottom:1px solid #ddd;"
          "font-variant-numeric:tabular-nums}.tfgraphs-report pre{white-space:pre-wrap}</style>")


def rendered(result, command, fmt="simple", width=WIDTH, verbose=False, figure=None):
    """The result's page by its command's renderer, fitted to width (None: tables left wide); verbose keeps every
    table and finding; figure is an <img> for HTML (text names --plot)."""
    if fmt != "html" and figure is None and command.figure_name:
        figure = f"Figure: --plot PATH (in Python, Report.plot()): {command.shows}."
    return command.render(result, fmt, width, verbose=verbose, figure=figure)


class Report:
    """A command's results: `.rows` as plain dicts, `str()` as text, HTML in Jupyter, `.plot()` and `.to_json()`."""

    def __init__(self, result, command, refused=()):
        self.result = result
        self.entry = command            # the registry's Command that made it
        self.refused = tuple(refused)   # one line per row the plan refused to run, as the command line prints them
        self._png = None                # the figure's PNG, drawn when a notebook first shows the report
        self._pages = {}                # (fmt, width, verbose, figure) -> its Page, rendered once

    @property
    def command(self):
        """The command that made it: compare, explain, sweep, shapes, pitfalls, inspect or unembed."""
        return self.result.command

    @property
    def config(self):
        """What was asked for, as plain data (the JSON document's config)."""
        return getattr(self.result, "config", {})

    @property
    def rows(self):
        """The result's rows as plain dicts: measured rows, an inspection's largest Consts, or what unembed moved."""
        return [r.to_dict() if hasattr(r, "to_dict") else dict(r) for r in getattr(self.result, self.entry.table)]

    @property
    def failed(self):
        """True when a measured row failed (a crashed or timed-out worker, a refused row, a wrong output)."""
        from tfgraphs.records.results import Results   # the records, and the judge's scipy, load with the first result

        if isinstance(self.result, Results):
            return any(not r.ok for r in self.result.rows)
        return not getattr(self.result, "ok", True)

    def text(self, fmt="simple", width=WIDTH, verbose=False):
        """The text report in any tabulate format, fitted to width columns (None: every table whole): the answer,
        the key tables and the first findings, or with verbose=True every table and finding."""
        return str(self._page(table_format(fmt), width, verbose=verbose is True))

    def _page(self, fmt="simple", width=WIDTH, verbose=False, figure=None):
        """The Page (text and the findings it states) in one way of showing it, rendered on first use only."""
        shown = (fmt, width, verbose, figure)
        if shown not in self._pages:
            self._pages[shown] = rendered(self.result, self.entry, fmt, width, verbose=verbose, figure=figure)
        return self._pages[shown]

    def __str__(self):
        return self.text()

    def __repr__(self):
        return f"<tfgraphs.Report {self.command}: {len(self.rows)} rows{', some failed' if self.failed else ''}>"

    def _repr_html_(self):
        """The answer, the figure inline, every table, then the findings (past the first few, folded away)."""
        png = self._repr_png_()
        figure = (f'<img alt="{self.command} figure" style="max-width:100%" '
                  f'src="data:image/png;base64,{base64.b64encode(png).decode()}">') if png else None
        return (f'{_STYLE}<div class="tfgraphs-report">'
                f'{self._page("html", None, verbose=True, figure=figure)}</div>')

    def _repr_png_(self):
        """The figure as PNG bytes, drawn once; None without matplotlib or a figure for this command."""
        from tfgraphs.render import plots

        if self._png is None:
            self._png = b""
            if self.entry.figure and plots.available():
                try:
                    self._png = plots.png(self.entry.figure(self.result))
                except (ValueError, KeyError, IndexError, TypeError):
                    pass   # rows the figure cannot draw (every one failed, say): the tables still show
        return self._png or None

    def plot(self, path=None):
        """A matplotlib Figure of the report (the backend is left alone); also saved as PNG to path if given."""
        from tfgraphs.render import plots

        plots.require()
        if not self.entry.figure:
            raise UsageError(f"{self.command} has no plot: it draws no figure")
        figure = self.entry.figure(self.result)
        if path:
            writable(plot=path)
            plots.save(figure, path)
        show_figures_inline()
        return figure

    def to_dict(self):
        """The JSON document, as a dict: the results, and every finding with the verdicts it states."""
        from tfgraphs.records.results import Results

        doc = self.result.to_dict()
        if isinstance(self.result, Results):
            # Every page states the same findings, whatever its format, width or verbosity: one already shown gives them.
            shown = next(iter(self._pages.values()), None) or self._page(width=None, verbose=True)
            doc["findings"] = stated(shown)
        return doc

    def to_json(self, path):
        """Write the whole report to path as the JSON document `tfgraphs report` reads."""
        writable(json=path)
        write_doc(self.to_dict(), path)

    def to_csv(self, path):
        """Write one flat row per variant x trial (per call for shapes) to path, times in s and sizes in bytes."""
        from tfgraphs.render.csv import write_csv

        if not self.entry.lines:
            raise UsageError(f"{self.command} has no rows to write as CSV")
        writable(csv=path)
        write_csv(self.result, self.entry.lines, path)

    def to_text(self, text, path):
        """Write the text report (as text() made it) to path, whole."""
        writable(output=path)
        write_atomic(path, lambda f: f.write(text))

    def write(self, json=None, csv=None, plot=None, output=None):
        """Write the JSON, CSV and PNG files and the text report asked for (None: not that one)."""
        if output:
            self.to_text(self.text(), output)
        if json:
            self.to_json(json)
        if csv:
            self.to_csv(csv)
        if plot:
            self.plot(plot)

