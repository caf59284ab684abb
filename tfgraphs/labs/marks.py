"""How a check declares what it needs beside its body: its judge, its hint, and the hint for each likely error."""


def hint_of(check):
    """The hint a check gives when it fails without a more specific one."""
    return getattr(check, "hint", "")


def hint(text):
    """Decorator: the hint a check gives when it fails without a more specific one."""
    def mark(check):
        check.hint = text
        return check
    return mark


def on_error(*pairs):
    """Decorator: (text in an error's message, the hint for it) pairs, the likely mistake behind each error."""
    def mark(check):
        check.error_hints = pairs
        return check
    return mark


def judged_by(verdict):
    """Decorator: the check's body gathers facts from the student's code; verdict(facts) -> (passed, detail, hint)
    judges them in the parent, which never imports that code."""
    def mark(check):
        check.judge = verdict
        return check
    return mark


def shares(key):
    """Decorator: the checks marked with one key are judged on the facts the first of them sent, so that code which
    builds something else on each call cannot pass each check with another build."""
    def mark(check):
        check.shares = key
        return check
    return mark


def hint_for(check, message):
    """The hint of the first (text, hint) pair of the check whose text the error's message holds, else its hint."""
    return next((h for text, h in getattr(check, "error_hints", ()) if text in message), hint_of(check))
