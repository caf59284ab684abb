"""An API function's keywords, their defaults and their checks, derived from the options declared for it."""

import functools
import inspect

from tfgraphs.api.outputs import command_outputs
from tfgraphs.spec.options import REQUIRED, declared


def takes(*sources, without=(), writes=None, named=None):
    """Give func(**checked) the signature the options of sources declare (Config classes or dicts of options, less
    the keywords in without), and check each value, and what they would write, before func sees them.

    writes(checked options): the Outputs beyond json, csv and plot (api.outputs), when the command has more.
    func.check(**given) is that check alone: the command line asks it of outputs it writes itself. named: the
    command's {figure} and {lines}, as its options' help names them."""
    options = declared(*sources, without=without)
    kind = inspect.Parameter
    # A required option (a path) may be given by position; every other is a keyword with its declared default.
    parameters = ([kind(name, kind.POSITIONAL_OR_KEYWORD) for name, o in options.items() if o.default is REQUIRED]
                  + [kind(name, kind.KEYWORD_ONLY, default=o.default) for name, o in options.items()
                     if o.default is not REQUIRED])
    signature = inspect.Signature(parameters)

    def decorate(func):
        def check(*args, **given):
            try:
                bound = signature.bind(*args, **given)
            except TypeError as exc:
                raise TypeError(f"{func.__name__}(): {exc}") from None
            bound.apply_defaults()
            values = {name: options[name].check(name, value) for name, value in bound.arguments.items()}
            command_outputs(values, writes(values) if writes else ())
            return values

        @functools.wraps(func)
        def checked(*args, **given):
            return func(**check(*args, **given))
        checked.__signature__ = signature
        checked.check = check
        checked.__doc__ = described(func.__doc__, options, named or {})
        checked.options = options
        return checked
    return decorate


def described(summary, options, named):
    """The function's one-line summary, then each keyword with its declared help, as help() and the docs show it."""
    said = [f"    {name}: {o.help.format(**named)}" for name, o in options.items()]
    return "\n".join([summary, "", "Args:", *said])
