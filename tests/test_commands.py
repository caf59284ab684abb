"""The registry is the only list of commands: each registered command has every part it names, none it does not,
and no other module lists commands."""

import ast
from importlib import import_module
from pathlib import Path

import pytest

import tfgraphs
from tfgraphs.spec.commands import COMMANDS, LAYERS

PACKAGE = Path(tfgraphs.__file__).parent
NAMES = set(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_has_a_module_in_each_layer_it_names_and_none_elsewhere(name):
    command = COMMANDS[name]
    for layer in LAYERS:
        assert (PACKAGE / layer / f"{name}.py").exists() == (layer in command.parts), (name, layer)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_part_is_what_its_layer_reads(name):
    from tfgraphs.records.results import record_type
    from tfgraphs.render import RENDERED, csv, plots, renderer

    command = COMMANDS[name]
    assert callable(import_module(f"tfgraphs.cli.{name}").add_parser)
    if "api" in command.parts:
        assert callable(getattr(tfgraphs, name)) and name in tfgraphs.__all__
    if command.record:
        assert hasattr(record_type(command), "from_dict") and name in RENDERED and callable(renderer(name))
    assert (name in plots.FIGURES) == (command.figure is not None)
    assert command.lines is None or command.lines in csv.LINES
    assert command.rows is None or command.record, "rows are kept only by a command with a record type"


def _listed(node):
    """The command names a literal tuple, list, set or dict (its keys) holds as plain strings."""
    items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", ())
    return {i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES}


def test_no_module_but_the_registry_lists_commands():
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path == PACKAGE / "spec" / "commands.py":
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
    from tfgraphs.findings.pitfalls import TEACHING
    from tfgraphs.findings.pitfalls_answer import HEADLINES
    from tfgraphs.render.pitfalls import SECTIONS
    from tfgraphs.spec.pitfalls import LESSONS
    from tfgraphs.worker.pitfalls import runs_of_lessons

    lessons = list(LESSONS)
    assert list(TEACHING) == lessons and list(SECTIONS) == lessons and list(runs_of_lessons()) == lessons
    # The answer headlines every lesson but pruning, whose kernels the findings list run by run.
    assert set(HEADLINES) == set(lessons) - {"pruning"}


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


FOLLOW_COMPARE = """
import sys
import tfgraphs.cli.compare, tfgraphs.api.compare, tfgraphs.jobs.compare
from tfgraphs.api.report import report
report(sys.argv[1]).text(verbose=True)
print("\\n".join(m for m in sys.modules if m.startswith("tfgraphs.")))
"""


def test_following_compare_from_the_cli_to_its_renderer_enters_no_module_of_another_command():
    """The registry's other commands stay unloaded: their parts are imported by name only when they run."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FOLLOW_COMPARE, str(Path(__file__).resolve().parent / "fixtures" / "compare.json")],
                          capture_output=True, text=True, check=True)
    loaded = proc.stdout.split()
    assert "tfgraphs.render.compare" in loaded and "tfgraphs.findings.compare_answer" in loaded
    others = {c for c in COMMANDS if c != "compare"} - {"report"}   # report's modules are every command's
    entered = [m for m in loaded if m.rsplit(".", 1)[-1].split("_")[0] in others]
    assert not entered
