"""The public surface holds still: every documented name is importable from `attnviz`, and each path
that moved after 0.1.0 still works, with a DeprecationWarning that names the new path."""

import importlib
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import attnviz

ROOT = Path(__file__).resolve().parent.parent
#: old path: (a name it gave, the module that has it now)
MOVED = {"attnviz.heads": ("HeadsFigure", "attnviz.figures.heads"),
         "attnviz.panels": ("Composite", "attnviz.figures.composite"),
         "attnviz.spec": ("read_spec", "attnviz.io.spec"),
         "attnviz.sphinx": ("setup", "attnviz.integrations.sphinx"),
         "attnviz.mkdocs": ("AttnvizPlugin", "attnviz.integrations.mkdocs"),
         "attnviz.markdown": ("fence_format", "attnviz.integrations.markdown")}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_path_warns_naming_the_new_one(old):
    name, new = MOVED[old]
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=rf"^{re.escape(old)} is deprecated: import {name} from "
                                                rf"{re.escape(new)}$") as caught:
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)
    assert caught[0].filename == __file__  # stacklevel=2: the warning points at the line that used the old path


def test_from_import_warns_at_the_importing_line_and_star_import_gives_every_name():
    with pytest.warns(DeprecationWarning, match="attnviz.panels is deprecated: import build from "
                                                "attnviz.figures.from_arguments") as caught:
        from attnviz.panels import build
    assert build is importlib.import_module("attnviz.figures.from_arguments").build
    assert caught[0].filename == __file__
    names = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec("from attnviz.sphinx import *", names)  # noqa: S102
    everything = importlib.import_module("attnviz.integrations.sphinx").__all__
    assert set(everything) <= set(names)
    assert sorted(str(w.message).rpartition(" import ")[2].split()[0] for w in caught) == sorted(everything)


def test_a_missing_name_or_a_dunder_is_an_attribute_error_without_a_warning(recwarn):
    heads = importlib.import_module("attnviz.heads")
    assert not hasattr(heads, "no_such_name") and not hasattr(heads, "__test__")
    with pytest.raises(AttributeError, match="module 'attnviz.heads' has no attribute 'nope'"):
        heads.nope  # noqa: B018
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]


def test_importing_a_moved_path_alone_does_not_warn():
    """Tools import every module (doctest collection, the docs): only using a name warns."""
    code = "import warnings; warnings.simplefilter('error'); import attnviz.heads, attnviz.sphinx, attnviz.spec"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("name", sorted(set(attnviz.__all__) - {"__version__"}))
def test_every_documented_name_is_importable_from_attnviz(name):
    assert getattr(attnviz, name) is not None
    assert f"attnviz.{name}" in (ROOT / "docs" / "api.rst").read_text(encoding="utf-8")


def test_the_api_reference_names_no_deep_path_but_the_docs_plugins():
    """docs/api.rst documents `attnviz.X` names: moving a module is then not an API change. The Sphinx
    extension and the MkDocs plugin are named by their module, as a conf.py and mkdocs.yml name them."""
    text = (ROOT / "docs" / "api.rst").read_text(encoding="utf-8")
    deep = set(re.findall(r"\.\. auto\w+:: (attnviz\.\w+\.[\w.]+)", text))
    assert deep <= {"attnviz.integrations.sphinx.setup", "attnviz.integrations.mkdocs.AttnvizPlugin"}, deep
