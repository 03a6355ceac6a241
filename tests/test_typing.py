"""attnviz is typed: mypy --strict passes on the package (its config in pyproject.toml), checks a user's
script that calls the API as documented, and reports a user's wrong types, each on its own line."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPTS = Path(__file__).parent / "data" / "typing"


def mypy(*args, cwd=ROOT):
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-color-output", "--no-error-summary", *args],
                            cwd=cwd, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout + result.stderr


def test_package_passes_its_mypy_config():
    code, output = mypy()
    assert code == 0, output


def test_the_mypy_config_is_strict_and_excuses_no_module():
    import tomllib

    pyproject = Path(__file__).parent.parent / "pyproject.toml"
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True and config["files"] == ["attnviz"]
    assert "overrides" not in config and "untyped_calls_exclude" not in config


@pytest.fixture(scope="module")
def user_dir(tmp_path_factory):
    """A folder outside the repo: mypy finds attnviz where a user's would, installed in the environment."""
    return tmp_path_factory.mktemp("user")


def test_a_correct_user_script_passes_strict(user_dir):
    script = user_dir / "uses_api.py"
    script.write_text((SCRIPTS / "uses_api.py").read_text(encoding="utf-8"), encoding="utf-8")
    code, output = mypy("--strict", "--cache-dir", str(user_dir / "cache"), str(script), cwd=user_dir)
    assert (code, output) == (0, "")
    # and it runs: the types say what the API does
    run = subprocess.run([sys.executable, str(script)], cwd=user_dir, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and (user_dir / "out" / "fig.svg").is_file(), run.stderr


def test_wrong_types_are_errors_on_their_lines(user_dir):
    source = (SCRIPTS / "wrong_types.py").read_text(encoding="utf-8")
    marked = {n for n, line in enumerate(source.splitlines(), 1) if "# E:" in line}
    script = user_dir / "wrong_types.py"
    script.write_text(source, encoding="utf-8")
    code, output = mypy("--strict", "--cache-dir", str(user_dir / "cache"), str(script), cwd=user_dir)
    reported = {int(n) for n in re.findall(r"^wrong_types\.py:(\d+): error:", output, re.M)}
    assert code == 1 and reported == marked, output


def test_attnviz_is_typed_to_mypy_not_missing_stubs(user_dir):
    script = user_dir / "reveal.py"
    script.write_text("import attnviz\nreveal_type(attnviz.figure)\nreveal_type(attnviz.figure().svg)\n",
                      encoding="utf-8")
    code, output = mypy("--strict", "--cache-dir", str(user_dir / "cache"), str(script), cwd=user_dir)
    assert code == 0 and "import-untyped" not in output, output
    figure, svg = re.findall(r'Revealed type is "(.*)"', output)
    # what an editor shows for each keyword: its accepted values, not Any (the options typed once, FigureOptions)
    assert "'theme'?: Literal['light'] | Literal['dark'] | Literal['print'] | Literal['contrast'] | Literal['auto']" \
        in figure
    # Two overloads: q and k give a Figure; q_heads and k_heads a HeadsFigure of panels.
    assert "'elide'?: bool" in figure and "'mask'?: str | " in figure and "-> attnviz.figures.figure.Figure," in figure
    assert figure.startswith("Overload(") and figure.endswith("-> attnviz.figures.heads.HeadsFigure)")
    assert svg == "def (id_prefix: str | None =) -> str"


def test_every_lazy_name_is_typed():
    """attnviz imports its API on first use (`_API`); a type checker sees each name through the
    `if TYPE_CHECKING:` imports, so a name added to one must be added to the other."""
    import ast

    tree = ast.parse((ROOT / "attnviz" / "__init__.py").read_text(encoding="utf-8"))
    checked = {alias.asname or alias.name: node.module
               for block in tree.body if isinstance(block, ast.If) and getattr(block.test, "id", "") == "TYPE_CHECKING"
               for node in block.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    import attnviz

    assert checked == attnviz._API
    assert set(attnviz.__all__) == {*attnviz._API, "__version__"}
