"""One version: `attnviz --version`, `attnviz.__version__` and the installed package's metadata agree."""

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import attnviz
from attnviz.cli.commands import main

ROOT = Path(__file__).parent.parent


def test_version_everywhere_agrees(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"attnviz {attnviz.__version__}\n"
    command = subprocess.run([sys.executable, "-m", "attnviz", "--version"], capture_output=True, text=True,
                             check=True)
    assert command.stdout == f"attnviz {attnviz.__version__}\n"
    assert version("attnviz") == attnviz.__version__


def test_changelog_names_the_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert changelog.startswith("# Changelog\n") and "## [Unreleased]" in changelog
    assert released and released[0] == attnviz.__version__
