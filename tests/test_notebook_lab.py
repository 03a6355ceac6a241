"""Figures in JupyterLab 4 (from PyPI, the `test` extra), in headless Chromium, both ways (issue 38): a notebook
run in Lab itself, and one executed elsewhere (nbclient) and opened untrusted, where Lab sanitises the HTML.
Each figure must show as its picture (an <img> that loaded, not a run-on string of its words), with its words
as alt text, and a `theme="auto"` figure must follow Lab's light and dark themes."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parent.parent
KERNEL = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
CELLS = ["import attnviz\nattnviz.figure(theme='auto')",
         "attnviz.compose(attnviz.figure(view='mask', n=8, mask='window=3'), attnviz.figure(frame='column'))"]
#: The outputs of the notebook on show (Lab keeps other notebooks' tabs in the page, hidden).
SHOWN = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output"
THEMES = Path("lab", "user-settings", "@jupyterlab", "apputils-extension")


def notebook(executed):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in CELLS], metadata=KERNEL)
    if executed:  # elsewhere: a kernel nbclient starts, no Lab; the stored notebook is not signed
        NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return nb


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_lab(root, theme):
    """A JupyterLab server on `root`, with the `theme` ("JupyterLab Light" or "JupyterLab Dark") set."""
    config = root / "config"
    (config / THEMES).mkdir(parents=True, exist_ok=True)
    (config / THEMES / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}))
    (config / THEMES / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), JUPYTER_CONFIG_DIR=str(config),
               JUPYTER_DATA_DIR=str(root / "data"), JUPYTER_RUNTIME_DIR=str(root / "runtime"))
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
         "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=t", f"--ServerApp.root_dir={root}"],
        env=env, stdout=(root / "server.log").open("w"), stderr=subprocess.STDOUT)
    for _ in range(240):
        assert server.poll() is None, (root / "server.log").read_text()
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api?token=t")
            return server, port
        except OSError:
            time.sleep(0.25)
    raise AssertionError("JupyterLab did not start")


@pytest.fixture(scope="module", params=["JupyterLab Light", "JupyterLab Dark"])
def lab(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    nbformat.write(notebook(executed=True), root / "elsewhere.ipynb")
    nbformat.write(notebook(executed=False), root / "here.ipynb")
    server, port = start_lab(root, request.param)
    yield f"http://127.0.0.1:{port}", root, request.param
    server.terminate()
    server.wait(timeout=30)


def open_notebook(page, url, name):
    page.goto(f"{url}/lab/tree/{name}?token=t")
    page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=60000)


def shown_figures(page):
    """Each output's figure as Lab shows it: the <img>'s loaded and drawn widths and its alt, any <svg> left and the
    output's text (a sanitised <svg> leaves its words)."""
    page.wait_for_function("""shown => [...document.querySelectorAll(shown + ' img')]
        .filter(i => i.complete && i.naturalWidth && i.getBoundingClientRect().width).length >= 2""",
                           arg=SHOWN, timeout=60000)
    return page.evaluate("""shown => [...document.querySelectorAll(shown)].map(out => {
        const img = out.querySelector('img');
        return {width: img.naturalWidth, shown: img.getBoundingClientRect().width, alt: img.alt,
                svgs: out.querySelectorAll('svg').length, text: out.innerText.trim()};
    })""", SHOWN)


def background(page, index):
    """The luminance (0–255) of a figure's background as Lab draws it: a pixel inside its top-left corner."""
    from io import BytesIO

    from PIL import Image

    image = Image.open(BytesIO(page.query_selector_all(f"{SHOWN} img")[index].screenshot()))
    return Image.Image.convert(image, "L").getpixel((3, 3))


def check(page, theme):
    figures = shown_figures(page)
    assert len(figures) == len(CELLS)
    for figure in figures:
        assert figure["width"] > 300 and figure["shown"] > 200  # the picture loaded and is drawn
        assert figure["svgs"] == 0 and figure["text"] == ""  # no sanitised SVG's words spilled as text
        assert figure["alt"]
    assert figures[0]["alt"].startswith("Attention honesty boundary. ")
    dark = background(page, 0) < 60
    assert dark == (theme == "JupyterLab Dark"), background(page, 0)  # theme="auto" follows Lab
    assert background(page, 1) > 200  # a light figure stays light


def test_a_notebook_executed_elsewhere_shows_its_figures_in_lab_untrusted(lab, browser):
    url, root, theme = lab
    stored = json.loads((root / "elsewhere.ipynb").read_text())
    for cell in stored["cells"]:
        data, = [output["data"] for output in cell["outputs"] if output["output_type"] == "execute_result"]
        assert sorted(data) == ["text/html", "text/plain"]  # the SVG stored once
    page = browser.new_page(viewport={"width": 1280, "height": 2400})
    open_notebook(page, url, "elsewhere.ipynb")
    check(page, theme)
    page.close()


def test_a_notebook_run_in_lab_shows_its_figures(lab, browser):
    url, _, theme = lab
    page = browser.new_page(viewport={"width": 1280, "height": 2400})
    open_notebook(page, url, "here.ipynb")
    # Lab may ask which kernel to start (it does when a session of the notebook was closed): the notebook's own
    with contextlib.suppress(PlaywrightTimeout):
        page.click(".jp-Dialog .jp-mod-accept", timeout=5000)
    page.click(".lm-MenuBar-itemLabel:text-is('Run')")
    page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
    check(page, theme)
    page.close()
