"""tfgraphs: measure how TensorFlow 1.x graph mode spends its time and memory.

    import tfgraphs
    r = tfgraphs.compare(batch=300, variants=["constant", "placeholder"], runs=2)
    print(r)            # the text report; in Jupyter, r alone shows it as HTML
    r.rows              # every measured row as a dict
"""

from importlib import import_module

from tfgraphs.errors import UsageError
from tfgraphs.spec.commands import COMMANDS

__version__ = "0.3.0"

# Each public name and the module that defines it, imported on first use: `import tfgraphs` stays light and never
# imports TensorFlow, which only the measuring workers load. Every command with an API is a function of its name.
_EXPORTS = {**{c.name: f"tfgraphs.api.{c.name}" for c in COMMANDS.values() if "api" in c.parts},
            "Report": "tfgraphs.api.report", "blocked_conv1d": "tfgraphs.worker.blocked",
            "watching": "tfgraphs.api.watch"}
__all__ = ["UsageError", "__version__", *_EXPORTS]


def __getattr__(name):
    """The public names, imported on first use; `tfgraphs.labs` too, for a notebook's `tfgraphs.labs.check(N)`."""
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    if name == "labs":
        return import_module("tfgraphs.labs")
    raise AttributeError(f"module 'tfgraphs' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
