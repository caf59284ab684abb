"""Where progress lines go: stderr in a terminal, one line updated in place under a Jupyter cell."""

import sys

from tfgraphs.jobs.runner import Progress


def in_notebook():
    """True inside a Jupyter kernel (IPython's ZMQ shell), where stderr is not a terminal."""
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    return type(shell).__name__ == "ZMQInteractiveShell"


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
    if quiet or not in_notebook():
        return Progress(total=total, quiet=quiet)
    return Progress(total=total, stream=CellLine())
