"""The package's shape: stages that import one way, no import cycles, modules a person can read."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attnviz"
#: The stages, in pipeline order: a module may import its own stage and the stages before it.
STAGES = ("errors", "records", "typing", "numbers", "engine", "words", "layout", "render", "figures", "io",
          "publish", "integrations", "cli")
#: Paths kept for a release after 0.1.0 (CHANGELOG): each only re-exports its new module.
MOVED = {"panels": "figures", "heads": "figures", "spec": "io", "sphinx": "integrations", "mkdocs": "integrations",
         "markdown": "integrations"}
MAX_LINES = 500


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(node):
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def imports_of(path):
    """Every attnviz module `path` imports at run time, at any depth (inside functions too), not under
    `if TYPE_CHECKING:`."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()

    def visit(node):
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - child.level + 1]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                if target.startswith("attnviz"):
                    for alias in child.names:  # `from . import notation` imports a module
                        sub = f"{target}.{alias.name}"
                        found.add(sub if _exists(sub) else target)
            elif isinstance(child, ast.Import):
                found.update(a.name for a in child.names if a.name.startswith("attnviz"))
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


def _exists(module):
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def graph():
    return {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def stage(module):
    parts = module.split(".")
    if len(parts) == 1:
        return None  # the package itself
    return MOVED.get(parts[1], parts[1])


def test_the_import_graph_has_no_cycle():
    edges = graph()
    # a package imports its parents' __init__ when imported: an edge to the parent is implied
    state, cycles = {}, []

    def walk(node, stack):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if nxt not in edges:
                continue
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, stack + [nxt])
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            walk(node, [node])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_imports_run_one_way_through_the_stages():
    backwards = []
    for module, targets in graph().items():
        own = stage(module)
        if own is None or own == "__main__":
            continue
        for target in targets:
            other = stage(target)
            if other is None or other == own:
                continue
            if STAGES.index(other) > STAGES.index(own):
                backwards.append(f"{module} -> {target}")
    assert not backwards, "imports against the pipeline: " + ", ".join(sorted(backwards))


def test_the_top_level_holds_only_the_stages_and_the_moved_paths():
    loose = {p.stem for p in PACKAGE.glob("*.py")} - {"__init__", "__main__", *STAGES, *MOVED}
    assert not loose, f"modules loose at the top of attnviz/: {sorted(loose)}"


def test_moved_paths_only_re_export():
    for old, _ in MOVED.items():
        tree = ast.parse((PACKAGE / f"{old}.py").read_text(encoding="utf-8"))
        body = [n for n in tree.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        assert all(isinstance(n, ast.ImportFrom) or _is_all(n) or _is_moved_to(n) for n in body), old


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: module_name(p))
def test_no_module_is_over_the_line_limit(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{module_name(path)} is {lines} lines; split it along a seam"


def test_imports_inside_functions_say_why():
    """An import inside a function is there only to keep start-up small (or to reach an optional
    dependency): the line before it, or the import's own line, says so."""
    unexplained = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    here = lines[node.lineno - 1]
                    before = lines[node.lineno - 2] if node.lineno > 1 else ""
                    if "#" not in here and "#" not in before and not _grouped_under_comment(lines, node.lineno):
                        unexplained.append(f"{module_name(path)}:{node.lineno}")
    assert not unexplained, "imports inside functions without a reason: " + ", ".join(unexplained)


def _grouped_under_comment(lines, lineno):
    """An import in a block of imports whose first line carries the comment."""
    n = lineno - 2
    while n >= 0 and (lines[n].strip().startswith(("import ", "from ")) or not lines[n].strip()):
        if "#" in lines[n]:
            return True
        n -= 1
    return n >= 0 and lines[n].strip().startswith("#")


def _is_all(node):
    """`__all__ = [...]`: a moved path's list of what it re-exports."""
    return isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"]


def _is_moved_to(node):
    """`__getattr__ = moved_to(...)`: a moved path's names, read from its new module with a warning."""
    return isinstance(node, ast.Assign) and getattr(node.value, "func", None) and node.value.func.id == "moved_to"


def test_no_module_imports_another_modules_private_names():
    """A name that starts with _ is its module's own: another module that needs it gets a public name."""
    private = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("attnviz")):
                private += [f"{module_name(path)}: {alias.name}" for alias in node.names
                            if alias.name.startswith("_") and not alias.name.startswith("__")]
    assert not private, "private names imported across modules: " + ", ".join(private)
