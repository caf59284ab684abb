"""What changes in a Jupyter kernel: progress is one line updated in place, and figures show as PNG."""

import sys


def _shell():
    """The running IPython shell, or None (IPython is never imported here: a kernel has imported it already)."""
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython else None


def in_notebook():
    """True inside a Jupyter or Colab kernel: a shell with a kernel, where stderr is not a terminal."""
    return getattr(_shell(), "kernel", None) is not None


def show_figures_inline():
    """In a kernel, show a matplotlib Figure as PNG when a cell returns it, leaving the backend as it is."""
    if not in_notebook():
        return
    from IPython.core.pylabtools import select_figure_formats
    from matplotlib.figure import Figure

    shell = _shell()
    formatters = shell.display_formatter.formatters
    # A format the user chose (inline backend, %config) stays; PNG only where no image format knows Figure.
    if not any(Figure in formatters[kind].type_printers for kind in ("image/png", "image/svg+xml", "image/jpeg",
                                                                       "application/pdf") if kind in formatters):
        select_figure_formats(shell, {"png"})


class CellLine:
    """A stream whose every finished line replaces the last one, in one output area of the running cell."""

    def __init__(self):
        from IPython.display import display

        self.pending = ""
        self.handle = display({"text/plain": ""}, raw=True, display_id=True)

    def write(self, text):
        self.pending += text
        if "\n" in self.pending:
            *_, line, self.pending = self.pending.split("\n")
            self.handle.update({"text/plain": line}, raw=True)

    def flush(self):
        pass


def progress(total, quiet=False):
    """The Progress a run reports to: silent when quiet, one updating line in a notebook, else stderr lines."""
    from tfgraphs.jobs.runner import Progress   # loaded with the job it reports on

    if quiet or not in_notebook():
        return Progress(total=total, quiet=quiet)
    return Progress(total=total, stream=CellLine())
