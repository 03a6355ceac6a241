"""The command's start-up cost, guarded by what it imports and compiles, not by a clock.

`attnviz render` (the default figure) must stay within 3x a bare `python -c pass` (issue 15;
measured by `make bench`). What keeps it there is importing only what the figure needs: these
tests run the command in a fresh interpreter and fail when a module it does not need is
imported, or when attnviz compiles a regular expression it does not use.
"""

import json
import subprocess
import sys

import pytest


# Modules the default render must not import: each is either unused by it or costs a share of the
# 3x budget (dataclasses: about 8 ms with inspect; pathlib: about 4 ms with urllib.parse).
NOT_FOR_DEFAULT_RENDER = (
    # standard library: heavy, or needed only by other paths
    "dataclasses", "inspect", "ast", "dis", "tokenize", "pathlib", "urllib", "ipaddress", "typing",
    "json", "tomllib", "difflib", "shutil", "tempfile", "contextlib", "subprocess", "threading",
    "concurrent", "multiprocessing", "struct",
    "bz2", "lzma", "hashlib", "importlib.metadata", "email", "logging", "xml",
    # third-party: only for other formats and options
    "fontTools", "jinja2", "latex2mathml", "mpmath", "cairosvg", "cairocffi", "numpy",
    "torch", "transformers",  # real-valued inputs and model configs import them only when given them
    "attnviz.figures.model", "attnviz.engine.model_masks",
    "attnviz.figures.composite", "attnviz.layout.panel_fit", "attnviz.layout.map_fit", "attnviz.layout.mask_map",
    # attnviz: other commands, other options
    "attnviz.engine.masks", "attnviz.engine.logits", "attnviz.numbers.rounding", "attnviz.publish.document",
    "attnviz.publish.page", "attnviz.publish.walkthrough.scores", "attnviz.publish.gallery",
    "attnviz.integrations.settings", "attnviz.publish.mathml", "attnviz.integrations.markdown",
    "attnviz.render.font_embed", "attnviz.integrations.sphinx", "attnviz.integrations.mkdocs", "attnviz.cli.batch",
)
# What --version and --help may import from attnviz: the package, the command (its commands, parser and
# signal handling) and its error type; and the option and format tables the flags' help comes from (data, no
# figure code; --help only).
COMMAND_ONLY = {"attnviz", "attnviz.cli", "attnviz.cli.commands", "attnviz.cli.arguments", "attnviz.cli.parser",
                "attnviz.cli.signals", "attnviz.errors", "attnviz.figures", "attnviz.figures.options",
                "attnviz.render", "attnviz.render.formats"}

# Run in a fresh interpreter: the command's imports, and every regular expression compiled from
# attnviz's own code (argparse's and the standard library's are theirs to pay for).
PROBE = r"""
import json, re, sys
compiled = []
original = re._compile

def recording(pattern, flags):
    frame = sys._getframe(1)
    while frame.f_globals.get("__name__", "").startswith("re"):  # re.compile, re.fullmatch, ...
        frame = frame.f_back
    if frame.f_globals.get("__name__", "").startswith("attnviz"):  # attnviz's own call, not argparse's
        compiled.append(str(pattern))
    return original(pattern, flags)

re._compile = recording
before = set(sys.modules)
from attnviz.cli.commands import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:  # argparse's --help exits
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(set(sys.modules) - before), "compiled": compiled}))
"""


def probe(*args, cwd):
    result = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, capture_output=True, text=True,
                            check=True)
    return json.loads(result.stdout.splitlines()[-1])


def imported(modules, names):
    """The names in `names` that `modules` contains, as a module or as a package of one."""
    return sorted(name for name in names if any(m == name or m.startswith(name + ".") for m in modules))


def test_default_render_imports_only_what_it_needs(tmp_path):
    run = probe("render", "-o", str(tmp_path / "seed.svg"), cwd=tmp_path)
    assert run["code"] == 0 and (tmp_path / "seed.svg").read_text(encoding="utf-8").startswith("<svg")
    assert imported(run["modules"], NOT_FOR_DEFAULT_RENDER) == []


def test_default_render_compiles_no_regular_expression(tmp_path):
    assert probe("render", "-o", str(tmp_path / "seed.svg"), cwd=tmp_path)["compiled"] == []


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("render", "--help")])
def test_version_and_help_import_no_figure_code(tmp_path, args):
    run = probe(*args, cwd=tmp_path)
    assert run["code"] == 0
    assert {m for m in run["modules"] if m.startswith("attnviz")} <= COMMAND_ONLY


def test_version_imports_not_even_argparse(tmp_path):
    assert "argparse" not in probe("--version", cwd=tmp_path)["modules"]


def test_guard_sees_what_other_paths_import(tmp_path):
    # The probe works: a spec file and a mask option do import what the default render leaves out.
    spec = tmp_path / "fig.toml"
    spec.write_text('q = "1,0; 0,1"\nk = "1,0; 0,1"\nmask = "window=1"\n', encoding="utf-8")
    run = probe("render", str(spec), "-o", str(tmp_path / "fig.svg"), cwd=tmp_path)
    assert run["code"] == 0
    assert {"tomllib", "attnviz.engine.masks"} <= set(run["modules"])


def test_api_names_stay_the_function_and_class():
    import attnviz.figures.api as module  # importing the submodules by name
    import attnviz.engine.tiled_softmax

    assert attnviz.figure is module.figure and attnviz.figure().svg().startswith("<svg")
    assert callable(attnviz.flash) and attnviz.flash.__name__ == "flash"
    # the paths documented before 0.2, by attribute access
    assert attnviz.figure.Figure is attnviz.Figure is module.Figure  # type: ignore[attr-defined]
    assert attnviz.flash.FlashStep is attnviz.engine.tiled_softmax.FlashStep  # type: ignore[attr-defined]
    assert attnviz.Figure.__name__ == "Figure" and attnviz.InputError.__name__ == "InputError"
    with pytest.raises(AttributeError):
        attnviz.no_such_name  # noqa: B018
