"""The output format table (render.formats) and every reader of it: a format is one entry plus its writer."""

import ast
import inspect
import re
from importlib import import_module

import pytest

import attnviz
from attnviz.cli.parser import build_parser
from attnviz.render import formats, raster
from attnviz.render.formats import FORMATS


def _format_flag(command):
    parser = build_parser()._subparsers._group_actions[0].choices[command]
    parser = getattr(parser, "filled", lambda: parser)()
    return next(action for action in parser._actions if "--format" in action.option_strings)


@pytest.mark.parametrize("command", ["render", "model", "page", "walkthrough"])
def test_the_commands_choices_are_the_table(command):
    flag = _format_flag(command)
    assert flag.choices is FORMATS
    assert command == "model" or all(name in flag.help for name in FORMATS)


def test_save_takes_the_tables_names():
    source = inspect.getsource(formats)
    literal = re.search(r"FormatName = Literal\[(.*?)\]", source).group(1)
    assert tuple(ast.literal_eval(f"[{literal}]")) == tuple(FORMATS)
    assert "FormatName" in inspect.getsource(attnviz.Figure.save)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_writer_is_there_and_every_extension_is_read(name):
    entry = FORMATS[name]
    module, _, function = entry.writer.rpartition(".")
    assert callable(getattr(import_module(module), function))
    assert raster.format_for(f"fig.{entry.extension}") == name
    assert entry.mime.count("/") == 1


def test_no_reader_keeps_its_own_list_of_formats():
    """The readers (CLI, Figure.save, pages, the Sphinx image path) name no format list or ternary of their own."""
    for module in ("attnviz.cli.parser", "attnviz.cli.commands", "attnviz.figures.figure", "attnviz.publish.page",
                   "attnviz.integrations.sphinx"):
        source = inspect.getsource(import_module(module))
        assert not re.search(r'\(\s*"svg",\s*"png"', source), module
        assert not re.search(r'== "(png|pdf)" else', source), module
        assert "cairosvg" not in source, module


def test_a_new_format_is_one_entry(monkeypatch, tmp_path):
    fig = attnviz.figure()
    monkeypatch.setitem(FORMATS, "txt", formats.Format("txt", "text/plain", None, "attnviz.render.raster.write_svg"))
    assert raster.format_for("fig.txt") == "txt"
    assert fig.save(tmp_path / "fig.txt").read_text(encoding="utf-8") == fig.svg() + "\n"
