"""Every Python example in the README and the docs passes `mypy --strict`, as a user's script would."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent


def doctest_source(lines):
    """The code of a doctest: `>>> ` and `... ` lines without their prompts (the expected output left out)."""
    return [line[4:] for line in lines if line.startswith((">>> ", "... ")) or line in (">>>", "...")]


def examples():
    """{name: source} for each page's examples: a page's doctests share one namespace, so they are one script;
    each `.. code-block:: python` or ```python block without prompts is a script of its own."""
    found = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]:
        text = path.read_text(encoding="utf-8")
        stem = re.sub(r"\W", "_", path.stem.lower())
        lines = [line.strip() for line in text.splitlines()]
        doctests = doctest_source(lines)
        if doctests:
            found[f"{stem}_doctests"] = "\n".join(doctests)
        blocks = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M) + [
            re.sub(r"(?m)^   ", "", block) for block in
            re.findall(r"^\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text, flags=re.M)]
        for n, block in enumerate(blocks, 1):
            if ">>>" not in block:
                found[f"{stem}_block_{n}"] = block
    return found


def test_every_example_passes_mypy_strict(tmp_path):
    found = examples()
    assert {"readme_doctests", "readme_block_1", "notebooks_block_1", "python_api_doctests"} <= set(found)
    for name, source in found.items():
        (tmp_path / f"{name}.py").write_text(source + "\n", encoding="utf-8")
    # This checkout's attnviz as a user's installed one: found on the Python path, as an installed package is,
    # its own code (checked by tests/test_typing.py under the project's settings) silent here; on MYPYPATH it
    # would be checked under these flags and, with import-untyped off, its own ignores for untyped
    # libraries would be unused. First on the path, ahead of any other attnviz (an editable install's).
    env = {key: value for key, value in os.environ.items() if key != "MYPYPATH"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    # Other libraries without type hints (seaborn beside attnviz, Python-Markdown) are theirs to type.
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--disable-error-code", "import-untyped",
                             "--no-color-output", "--no-error-summary",
                             "--cache-dir", str(tmp_path / "cache"), *sorted(str(p) for p in tmp_path.glob("*.py"))],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
