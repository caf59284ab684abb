"""How a worker's task crosses to its process: one flag per field of the task's frozen record, parsed back by the
worker; the worker answers with one JSON document on stdout and tells the parent its progress in PHASE_PREFIX lines
on stderr."""

import argparse
from dataclasses import MISSING, field, fields

PHASE_PREFIX = "@phase "


def choice(names):
    """A task field whose flag takes one of names."""
    return field(metadata={"choices": tuple(names)})


def _flag(f):
    return "--" + f.name.replace("_", "-")


def to_argv(task):
    """`python` arguments that run the task's worker: -m MODULE, then one flag per field that is set."""
    argv = ["-m", task.MODULE]
    for f in fields(task):
        value = getattr(task, f.name)
        if value is not None:
            argv += [_flag(f), str(value)]
    return argv


def from_argv(cls, argv=None):
    """The task a worker was started with, parsed from the flags to_argv wrote."""
    p = argparse.ArgumentParser(prog=f"python -m {cls.MODULE}", description=cls.__doc__)
    for f in fields(cls):
        required = f.default is MISSING
        p.add_argument(_flag(f), dest=f.name, type=int if f.type is int else str, required=required,
                       default=None if required else f.default, choices=f.metadata.get("choices"))
    return cls(**vars(p.parse_args(argv)))
