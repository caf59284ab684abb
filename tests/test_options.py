"""Each option is declared once (spec.options): the API's keywords and defaults, the command line's flags and help,
and the refusal of a bad value all come from that declaration. In-process: no worker starts."""

import ast
import dataclasses
import inspect
from pathlib import Path

import pytest

import tfgraphs
from tfgraphs.cli import build_parser
from tfgraphs.cli import main as cli_main
from tfgraphs.cli import CLI_ONLY
from tfgraphs.errors import UsageError
from tfgraphs.jobs import owngraph
from tfgraphs.api.commands import COMMANDS
from tfgraphs.spec.options import REQUIRED, Option, Whole, declared, flag, switch

MEASURED = list(COMMANDS)
CONFIGS = {**{c.name: c.config for c in COMMANDS.values()}, "owngraph": owngraph.Config}
JOBS = Path(tfgraphs.__file__).parent / "jobs"


def subparsers():
    """{command: its argparse parser}."""
    parser = build_parser()
    action = next(a for a in parser._actions if a.dest == "command")
    return action.choices


@pytest.mark.parametrize("name", MEASURED)
def test_the_api_signature_is_the_declared_options(name):
    func = getattr(tfgraphs, name)
    parameters = inspect.signature(func).parameters
    assert list(parameters) == sorted(func.options, key=lambda k: func.options[k].default is not REQUIRED)
    for keyword, option in func.options.items():
        expected = inspect.Parameter.empty if option.default is REQUIRED else option.default
        assert parameters[keyword].default == expected, keyword


@pytest.mark.parametrize("name", MEASURED)
def test_every_declared_default_passes_its_own_check(name):
    for keyword, option in getattr(tfgraphs, name).options.items():
        if option.default is not REQUIRED:
            assert option.check(keyword, option.default) == option.default, keyword


@pytest.mark.parametrize("name", MEASURED)
def test_the_command_line_has_a_flag_for_each_option_and_no_other(name):
    parser = subparsers()[name]
    func = getattr(tfgraphs, name)
    dests = {a.dest for a in parser._actions if a.dest != "help"} - CLI_ONLY
    assert dests == set(func.options)
    for action in parser._actions:
        option = func.options.get(action.dest)
        if option is None or option.positional:
            continue
        assert action.help.startswith(option.help.split("{")[0]), action.dest
        if option.shown is not None:
            assert f"default {option.shown}" in action.help, action.dest
        elif option.default not in (None, REQUIRED) and not isinstance(option.default, (bool, tuple)):
            assert f"default {option.default}" in action.help, action.dest
        if isinstance(option.check, Whole) and option.check.most is not None:
            assert f"at most {option.check.most:,}" in action.help, action.dest
        if option.check is switch:
            assert action.option_strings == [("--no-" + flag(action.dest)[2:]) if option.default else
                                             flag(action.dest)]


@pytest.mark.parametrize("name", CONFIGS)
def test_every_config_field_is_declared_by_an_option(name):
    # A field marked "format" records how the run was made (no option sets it); every other is an option's.
    undeclared = [f.name for f in dataclasses.fields(CONFIGS[name]) if not {"option", "format"} & set(f.metadata)]
    assert not undeclared


def bounded():
    """(command, keyword, a value past the bound) for every whole-number option with a lower bound."""
    for name in MEASURED:
        for keyword, option in getattr(tfgraphs, name).options.items():
            if isinstance(option.check, Whole) and not option.positional:
                yield name, keyword, option.check.least - 1


@pytest.mark.parametrize("name, keyword, value", list(bounded()))
def test_python_and_the_command_line_refuse_a_value_alike(name, keyword, value, capsys):
    positional = {"inspect": ["g.pb"], "unembed": ["g.pb", "-o", "out"]}.get(name, [])
    given = {"inspect": {"path": "g.pb"}, "unembed": {"path": "g.pb", "out": "out"}}.get(name, {})
    with pytest.raises(UsageError) as caught:
        getattr(tfgraphs, name)(**given, **{keyword: value})
    assert cli_main([name, *positional, flag(keyword), str(value)]) == 2
    assert capsys.readouterr().err == f"tfgraphs: {caught.value}\n"
    assert str(caught.value).startswith(f"{flag(keyword)} {value} must be")


def test_a_keyword_declared_twice_must_be_declared_alike():
    one = Option(1, Whole(), "runs")
    assert declared({"runs": one}, {"runs": one}) == {"runs": one}
    with pytest.raises(TypeError, match="runs is declared twice"):
        declared({"runs": one}, {"runs": dataclasses.replace(one, default=2)})


def test_an_unknown_keyword_is_refused_as_python_would():
    with pytest.raises(TypeError, match="compare\\(\\): got an unexpected keyword argument 'batches'"):
        tfgraphs.compare(batches=3)


def test_no_job_checks_an_option_against_a_bound_of_its_own():
    """A bound lives in the option's declaration only: no `config.steps < 2` in a plan."""
    found = []
    for path in JOBS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute)
                    and isinstance(node.left.value, ast.Name) and node.left.value.id == "config"
                    and all(isinstance(c, ast.Constant) and isinstance(c.value, (int, float)) for c in
                            node.comparators)):
                found.append(f"{path.name}:{node.lineno}")
    assert not found


def test_the_bound_check_fails_on_a_second_bound(tmp_path, monkeypatch):
    """The scan above catches a plan that bounds a field again."""
    planted = tmp_path / "jobs"
    planted.mkdir()
    (planted / "plan.py").write_text("def plan(config):\n    if config.steps < 2:\n        raise ValueError\n")
    monkeypatch.setitem(globals(), "JOBS", planted)
    with pytest.raises(AssertionError):
        test_no_job_checks_an_option_against_a_bound_of_its_own()
