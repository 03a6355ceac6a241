"""mpmath is the `decimal` extra: only decimal weights need it, and without it they end in one line naming it."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Run attnviz's command with mpmath impossible to import, as in an install without the extra.
WITHOUT_MPMATH = """
import sys
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "mpmath":
            raise ImportError("No module named 'mpmath'")
sys.meta_path.insert(0, Hide())
from attnviz.cli import main
sys.exit(main(sys.argv[1:]))
"""


def attnviz_without_mpmath(*args):
    return subprocess.run([sys.executable, "-c", WITHOUT_MPMATH, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_decimal_weights_without_mpmath_name_the_extra_in_one_line():
    done = attnviz_without_mpmath("render", "--weights", "decimal=3", "-o", "-")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["attnviz: error: --weights: decimal weights need mpmath: "
                                        "pip install 'attnviz[decimal]'"]


def test_everything_else_draws_without_mpmath():
    done = attnviz_without_mpmath("render", "-o", "-")
    assert done.returncode == 0 and done.stdout.startswith("<svg"), done.stderr


def test_the_decimal_extra_installs_mpmath():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert [dep.split(">")[0] for dep in project["optional-dependencies"]["decimal"]] == ["mpmath"]
    assert "decimal" in project["optional-dependencies"]["all"][0]
