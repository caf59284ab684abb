"""The one exception that means "bad input": one line on stderr and exit status 2."""


class UsageError(ValueError):
    """Bad input from the user: a bad number or name, a malformed file, a size past a limit."""
