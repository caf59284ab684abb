"""The registry is the only list of commands: each entry holds the real parts of its command, the API functions and
the subcommands are made from it, and no other module lists commands."""

import ast
import dataclasses
from pathlib import Path

import pytest

import tfgraphs
from tfgraphs.api.commands import COMMANDS, FUNCTIONS
from tfgraphs.render import csv

PACKAGE = Path(tfgraphs.__file__).parent
NAMES = set(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_entry_holds_its_commands_parts(name):
    command = COMMANDS[name]
    assert dataclasses.is_dataclass(command.config) and callable(command.job.plan) and callable(command.job.run)
    assert callable(command.render) and hasattr(command.document, "from_dict") and command.document.command == name
    assert (command.figure is None) == (command.shows is None)
    assert command.lines is None or isinstance(command.lines, csv.Lines)
    assert getattr(tfgraphs, name) is FUNCTIONS[name] and name in tfgraphs.__all__


def test_no_module_is_found_by_formatting_its_name():
    # The labs' checks are numbered modules, one per lab, loaded by the lab's number.
    numbered = PACKAGE / "labs" / "checking.py"
    formatted = [f"{path.relative_to(PACKAGE)}: {needle}" for path in PACKAGE.rglob("*.py") if path != numbered
                 for needle in ('import_module(f"', "globals()[f") if needle in path.read_text()]
    assert formatted == []


def _listed(node):
    """The command names a literal tuple, list, set or dict (its keys) holds as plain strings."""
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", ())
    return {i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES}


def test_no_module_but_the_registry_lists_commands():
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "api" / "commands.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and len(_listed(node)) >= 3:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {sorted(_listed(node))}")
    assert found == []


def test_the_check_catches_a_second_list():
    assert _listed(ast.parse('("compare", "explain", "sweep")').body[0].value) == {"compare", "explain", "sweep"}
    assert _listed(ast.parse('{"compare": 1, "shapes": 2, "inspect": 3}').body[0].value) == {"compare", "shapes",
                                                                                              "inspect"}


def test_each_layer_holds_one_entry_per_pitfalls_lesson():
    from tfgraphs.findings.evidence import FINDINGS
    from tfgraphs.findings.pitfalls import HEADLINES, LESSON_OF
    from tfgraphs.render.pitfalls import TABLES
    from tfgraphs.spec.pitfalls import LESSONS
    from tfgraphs.worker.pitfalls import runs_of_lessons

    lessons = list(LESSONS)
    assert list(TABLES) == lessons and list(runs_of_lessons()) == lessons
    # Every lesson's findings are declared, in the lessons' order, each naming a lesson spec.pitfalls declares.
    taught = [LESSON_OF[f.kind] for f in FINDINGS["pitfalls"] if f.kind in LESSON_OF and not f.headline]
    assert list(dict.fromkeys(taught)) == lessons
    # Every lesson has a headline the answer may show.
    assert [LESSON_OF[f.kind] for f in HEADLINES] == lessons


def _flags():
    """{option string: {(dest, help before its default): [command, ...]}} over every command and subcommand."""
    import argparse

    from tfgraphs.cli import build_parser

    found = {}

    def walk(name, parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, sub_parser in action.choices.items():
                    walk(f"{name} {sub}".strip(), sub_parser)
            for flag in action.option_strings:
                meaning = (action.dest, (action.help or "").split(" (default")[0])
                found.setdefault(flag, {}).setdefault(meaning, []).append(name)
    walk("", build_parser())
    return found


def test_no_flag_means_two_things():
    flags = _flags()
    # One flag, one keyword everywhere; the flags that once meant two things now mean one.
    assert {flag: {dest for dest, _ in meanings} for flag, meanings in flags.items()
            if len({dest for dest, _ in meanings}) > 1} == {}
    assert len(flags["--force"]) == 1, flags["--force"]   # skip the memory check, and nothing else
    assert sorted(c for cs in flags["--fetch"].values() for c in cs) == ["explain", "unembed"]   # a graph's nodes
    assert sorted(c for cs in flags["--returns"].values() for c in cs) == ["compare"]          # output or sum
    assert sorted(c for cs in flags["--replace"].values() for c in cs) == ["unembed"]          # replace OUT
