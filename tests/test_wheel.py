"""The installed wheel, not the source tree, writes the page: the template and the seed spec ship inside it."""

import os
import subprocess
import sys
from pathlib import Path

from pagetext import body_text, squeeze

ROOT = Path(__file__).parent.parent


def test_installed_wheel_renders_the_page(tmp_path):
    wheels, site, work = tmp_path / "wheels", tmp_path / "site", tmp_path / "work"
    work.mkdir()
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
    # hatchling comes with the test extra, so the build needs no network.
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(wheels), str(ROOT)],
                   check=True, capture_output=True, timeout=120)
    wheel, = wheels.glob("attnviz-*.whl")
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=120)
    # The wheel's attnviz first on the path; its dependencies (jinja2, latex2mathml) from this venv.
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = ("import attnviz, attnviz.publish.page as p, sys; print(attnviz.__file__); print(p.template_dir()); "
            "sys.exit(attnviz.cli.main(['page', '-o', 'out']))")
    result = subprocess.run([sys.executable, "-P", "-c", "import attnviz.cli.commands; " + code], cwd=work, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    module, templates, *written = result.stdout.splitlines()
    assert Path(module).is_relative_to(site) and Path(templates) == site / "attnviz" / "templates"
    assert (site / "attnviz" / "py.typed").is_file()  # type checkers read the wheel's annotations
    assert written == ["out/index.html", "out/steps/01-what-is-exact.svg", "out/steps/02-what-is-not-claimed.svg",
                       "out/steps/03-summary.svg"]
    html = (work / "out" / "index.html").read_text(encoding="utf-8")
    seed = (Path(__file__).parent / "data" / "seed-page.txt").read_text(encoding="utf-8")
    assert squeeze(body_text(html)) == squeeze(seed)


def _readme_first_commands():
    """The `attnviz ...` lines of the README's sh blocks under "Five first figures", as a newcomer types them."""
    import re
    import shlex

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Five first figures", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    lines = [line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line.startswith("attnviz ")]


def test_sdist_and_wheel_pass_twine_check_and_a_fresh_venv_runs_the_readme(tmp_path):
    """`python -m build` makes both; twine checks them as PyPI would; the wheel alone, with no extras, in a new
    virtual environment, runs the README's first commands, and each missing extra is one line naming it."""
    dist, venv, work = tmp_path / "dist", tmp_path / "fresh", tmp_path / "work"
    work.mkdir()
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    sdist, = dist.glob("attnviz-*.tar.gz")
    wheel, = dist.glob("attnviz-*.whl")
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)],
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0 and checked.stdout.count("PASSED") == 2, checked.stdout + checked.stderr

    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(next(n for n in archive.namelist() if n.endswith("METADATA"))).decode()
    extras = {line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Provides-Extra: ")}
    assert {"png", "slides", "sphinx", "mkdocs", "torch", "models", "decimal", "all", "test", "docs"} <= extras
    assert "Description-Content-Type: text/markdown" in metadata and "Project-URL: " in metadata
    assert "License-Expression: MIT" in metadata and "Classifier: Typing :: Typed" in metadata

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
    python, attnviz_command = venv / "bin" / "python", venv / "bin" / "attnviz"
    subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "--quiet", "install", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    installed = subprocess.run([str(python), "-m", "pip", "list", "--format", "freeze"], capture_output=True,
                               text=True, check=True).stdout.lower()
    for extra_package in ("cairosvg", "torch", "sphinx", "mkdocs", "python-pptx", "transformers"):
        assert f"{extra_package}==" not in installed, extra_package
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    commands = _readme_first_commands()
    assert len(commands) >= 4
    for command in commands:
        result = subprocess.run([str(attnviz_command), *command[1:]], cwd=work, env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 0, (command, result.stderr)
    assert (work / "out" / "attention-honesty-boundary.svg").is_file() and (work / "fig.svg").is_file()
    assert "<title" in (work / "window.svg").read_text(encoding="utf-8")
    for command, extra in ((["render", "-o", "fig.png"], "png"), (["slides", "-f", "pptx", "-o", "deck.pptx"],
                                                                   "slides")):
        result = subprocess.run([str(attnviz_command), *command], cwd=work, env=env, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"pip install 'attnviz[{extra}]'" in result.stderr
