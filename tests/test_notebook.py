"""Figures in Jupyter: a real kernel runs a notebook (nbclient) and nbconvert turns it into HTML."""

import base64
import re
from html import unescape as html_unescape

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter

CELLS = [
    "import attnviz\nfig = attnviz.figure([[1, 0], [0, 1], [1, 1]], [[1, 0], [0, 1], [1, 1]],\n"
    "                     tokens=['<s>', 'the', 'cat'], highlight=[(3, 3)])\nfig",
    "from attnviz.publish.walkthrough.scores import walkthrough\n_, steps = walkthrough(fig)\nsteps[4]",
    "attnviz.compose(fig, attnviz.figure(view='mask', n=8, mask='window=3'))",
    "from attnviz.publish.walkthrough.flash import flash_walkthrough\n_, tiles = flash_walkthrough(fig, (2, 2))\n"
    "tiles[1]",
]


@pytest.fixture(scope="module")
def notebook():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    return nb


def figure_svg(html):
    """The SVG an output's `<img>` carries as its data URL."""
    return base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', html)[1]).decode("utf-8")


def test_each_figure_shows_as_one_img_of_its_svg_with_its_words_as_alt_text(notebook):
    for cell in notebook.cells:
        data, = [output["data"] for output in cell.outputs if output["output_type"] == "execute_result"]
        assert sorted(data) == ["text/html", "text/plain"]  # the SVG once: no image/svg+xml beside it
        html = data["text/html"]
        assert html.startswith('<div class="attnviz-figure"><img style="max-width:100%;height:auto" alt="')
        svg = figure_svg(html)
        assert svg.startswith("<svg ") and "<title" in svg
        title = re.search(r"<title[^>]*>(.*?)</title>", svg)[1]
        assert f'alt="{title}. ' in html and data["text/plain"] == f"<attnviz figure: {html_unescape(title)}>"
        assert html.count("<svg") == 0 and len(html) < 1.4 * len(svg.encode("utf-8")) + 600


def test_nbconvert_html_keeps_the_figures_and_their_words(notebook):
    body, _ = HTMLExporter().from_notebook_node(notebook)
    figures = re.findall(r'<div class="attnviz-figure"><img .*?></div>', body, flags=re.S)
    assert len(figures) == 4
    first, step = figure_svg(figures[0]), figure_svg(figures[1])
    assert 'aria-label="Q(cat) K(cat) score 2, computed this step"' in first
    assert "<title" in step and "not computed yet" in step
    ids = [found for figure in figures for found in re.findall(r' id="(attnviz-[^"]+)"', figure_svg(figure))]
    assert len(ids) == len(set(ids))  # every display has ids of its own
