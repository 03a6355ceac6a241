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
