"""The option table (attnviz.figures.options) is the one list of figure options: the spec's keys, the
command's flags, the Sphinx directive's options, the MkDocs fence's keys and figure()'s keywords all
agree with it, name for name, default for default, text for text."""

import inspect

import pytest

from attnviz.cli.parser import build_parser, join_negative_values
from attnviz.figures import options as table
from attnviz.figures.api import figure
from attnviz.figures.single import one_head_figure
from attnviz.io import spec
from attnviz.typing import FigureOptions

FLAGGED = [option for option in table.OPTIONS if option.flag]


def _subparser(name):
    return build_parser()._subparsers._group_actions[0].choices[name].filled()


def _actions(parser):
    return {action.option_strings[-1] if action.option_strings else action.dest: action for action in parser._actions}


def test_every_name_is_declared_once():
    names = [option.name for option in table.OPTIONS]
    assert len(names) == len(set(names))
    assert table.BY_NAME == {option.name: option for option in table.OPTIONS}
    flags = [option.flag for option in FLAGGED]
    assert len(flags) == len(set(flags))


def test_spec_keys_are_the_tables():
    assert list(spec.KEYS) == [option.name for option in table.SPEC_OPTIONS]
    assert list(spec.WALKTHROUGH_KEYS) == [option.name for option in table.WALKTHROUGH_OPTIONS]
    for option in (*table.SPEC_OPTIONS, *table.WALKTHROUGH_OPTIONS):
        key = (spec.KEYS | spec.WALKTHROUGH_KEYS)[option.name]
        assert (key.expects, key.example) == (option.expects, option.example), option.name
        assert key.check is getattr(spec, f"_{option.check}"), option.name
        assert option.example.startswith(f"{option.name} = "), option.name


def test_figure_signature_is_the_tables():
    # figure() names the keywords its overloads tell apart (SIGNATURE); the others are its **options, typed once
    # by attnviz.typing.FigureOptions: together, every API option, each with the table's type and default
    params = inspect.signature(figure).parameters
    *named, options = params.values()
    assert [param.name for param in named] == list(table.SIGNATURE)
    assert (options.kind, options.annotation) == (inspect.Parameter.VAR_KEYWORD, "Unpack[FigureOptions]")
    for param in named:
        option = table.BY_NAME[param.name]
        positional = option.name in ("q", "k")  # figure(q, k): the vectors may be given by position
        assert (param.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD) is positional, option.name
        assert param.default == option.default and type(param.default) is type(option.default), option.name
        assert param.annotation == option.type, option.name  # annotations are text (from __future__)
    typed = {name: hint.__forward_arg__ for name, hint in FigureOptions.__annotations__.items()}
    rest = [option for option in table.API_OPTIONS if option.name not in table.SIGNATURE]
    assert typed == {option.name: option.type for option in rest} and not FigureOptions.__required_keys__
    # the record a figure is made from: every option at the table's default unless given, frozen
    record = table.figure_options({"mask": "none"}, title="T")
    assert dict(record) == {**{option.name: option.default for option in rest}, "mask": "none", "title": "T"}
    with pytest.raises(TypeError):
        record["mask"] = "causal"
    with pytest.raises(TypeError, match="^figure\\(\\) got an unexpected keyword argument 'colour'$"):
        figure(colour="red")
    assert list(inspect.signature(one_head_figure).parameters) == ["q", "k", "v", "view", "options"]


def test_spec_keys_are_figure_keywords_or_compose_keys():
    for option in table.SPEC_OPTIONS:
        assert option.in_api or option.name in spec.COMPOSE_KEYS, option.name


def test_flag_groups_list_every_flag_once():
    grouped = [*table.FIGURE_FLAGS, *table.LOOK_FLAGS, *table.PANEL_FLAGS, *table.WALKTHROUGH_FLAGS, *table.DECK_FLAGS]
    assert sorted(grouped) == sorted(option.name for option in FLAGGED)
    assert {option.name for option in table.SPEC_OPTIONS} <= set(grouped)  # every spec key has a flag


@pytest.mark.parametrize("command, groups", [
    ("render", ("FIGURE_FLAGS", "LOOK_FLAGS", "PANEL_FLAGS")),
    ("walkthrough", ("FIGURE_FLAGS", "LOOK_FLAGS", "WALKTHROUGH_FLAGS")),
    ("slides", ("FIGURE_FLAGS", "LOOK_FLAGS", "WALKTHROUGH_FLAGS", "DECK_FLAGS")),
    ("page", ("LOOK_FLAGS",)),
])
def test_argparse_flags_are_the_tables(command, groups):
    actions = _actions(_subparser(command))
    names = [name for group in groups for name in getattr(table, group)
             if not (command == "walkthrough" and name == "highlight")]  # each step highlights what it computes
    for name in names:
        option = table.BY_NAME[name]
        action = actions[option.flag]
        assert action.help == option.help, option.flag
        assert action.metavar == option.metavar, option.flag
        assert action.dest == (option.dest or option.name), option.flag
        kind = {"_AppendAction": "append", "_StoreTrueAction": "switch"}.get(type(action).__name__, "store")
        assert kind == option.action, option.flag
        assert getattr(action.type, "__name__", None) == (option.value and f"_{option.value}"), option.flag
    figure_flags = {action.option_strings[-1] for action in actions.values() if action.option_strings} & {
        option.flag for option in FLAGGED}
    assert figure_flags == {table.BY_NAME[name].flag for name in names}


def test_flags_whose_values_may_start_with_a_minus_sign():
    for option in FLAGGED:
        joined = join_negative_values([option.flag, "-1"])
        assert joined == ([f"{option.flag}=-1"] if option.dash_value else [option.flag, "-1"]), option.flag


def test_slide_formats_are_the_deck_writers():
    from attnviz.publish.deck.formats import FORMATS

    assert _actions(_subparser("slides"))["--format"].choices is FORMATS


def test_sphinx_options_are_the_tables():
    pytest.importorskip("sphinx")
    from attnviz.integrations import sphinx

    names = set(sphinx.AttnvizDirective.option_spec) - set(sphinx.OWN_OPTIONS)
    assert names == {name for option in table.SPEC_OPTIONS for name in (option.name, option.directive_option)}
    assert sphinx._unknown_option("q-tokenz").endswith("did you mean ':q-tokens:'?")


@pytest.mark.parametrize("option", table.SPEC_OPTIONS, ids=lambda option: option.name)
def test_mkdocs_fence_keys_are_the_tables(option):
    from attnviz.integrations.settings import block_settings  # what the Markdown fence's block is read with

    assert list(block_settings(option.example)) == [option.name]


def test_model_figure_options_are_typed_once():
    from attnviz.figures.model import MODEL_DEFAULTS, model_figure
    from attnviz.typing import ModelOptions

    params = list(inspect.signature(model_figure).parameters.values())
    assert [(p.name, p.kind) for p in params] == [("config", inspect.Parameter.POSITIONAL_OR_KEYWORD),
                                                   ("options", inspect.Parameter.VAR_KEYWORD)]
    assert list(ModelOptions.__annotations__) == list(MODEL_DEFAULTS) and not ModelOptions.__required_keys__
    with pytest.raises(TypeError, match="^model_figure\\(\\) got an unexpected keyword argument 'pad_lft'$"):
        model_figure({"model_type": "gemma2", "num_hidden_layers": 2}, pad_lft=1)
