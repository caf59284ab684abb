"""tfgraphs: measure how TensorFlow 1.x graph mode spends its time and memory.

    import tfgraphs
    r = tfgraphs.compare(batch=300, variants=["constant", "placeholder"], runs=2)
    print(r)            # the text report; in Jupyter, r alone shows it as HTML
    r.rows              # every measured row as a dict
"""

from importlib import import_module
from importlib.util import find_spec

from tfgraphs.errors import UsageError

__version__ = "0.3.0"

# The public names beside the commands' functions, and the module that defines each. Every name is imported on first
# use: `import tfgraphs` stays light and never imports TensorFlow, which only the measuring workers load.
_EXPORTS = {"Report": "tfgraphs.api.commands", "report": "tfgraphs.api.commands",
            "blocked_conv1d": "tfgraphs.worker.graphs", "watching": "tfgraphs.api.commands"}


def _functions():
    """tfgraphs.compare() and every other command's function, made from the registry."""
    return import_module("tfgraphs.api.commands").FUNCTIONS


def __getattr__(name):
    """The public names, imported on first use; `tfgraphs.labs` too, for a notebook's `tfgraphs.labs.check(N)`."""
    if name == "__all__":
        return ["UsageError", "__version__", *_functions(), *_EXPORTS]
    if name == "labs":
        return import_module("tfgraphs.labs")
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    # `from tfgraphs import processes` asks for the attribute before importing the submodule: importing the registry
    # then would import the module being imported again, half made (`import tfgraphs.jobs.runner` first of all).
    if not name.startswith("_") and find_spec(f"{__name__}.{name}") is None and name in _functions():
        return _functions()[name]
    raise AttributeError(f"module 'tfgraphs' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS) | set(_functions()))
