"""Code quality that a reader relies on: public names documented, no dead code."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "attnviz"


def _public_definitions(path):
    """(name, node) of each function and class the module lists in `__all__`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    listed = set()
    for node in tree.body:
        names_all = isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
        if names_all and isinstance(node.value, (ast.List, ast.Tuple)):
            listed |= {elt.value for elt in node.value.elts if isinstance(elt, ast.Constant)}
    return [(node.name, node) for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in listed]


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_public_function_and_class_has_a_docstring(path):
    missing = [name for name, node in _public_definitions(path) if not ast.get_docstring(node)]
    assert not missing, f"{path.relative_to(ROOT)}: no docstring for {missing}"


def test_vulture_finds_no_dead_code():
    run = subprocess.run([sys.executable, "-m", "vulture", "attnviz", "tools/vulture_whitelist.py",
                          "--min-confidence", "80"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
