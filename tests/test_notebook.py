"""Figures in Jupyter: a real kernel runs a notebook (nbclient) and nbconvert turns it into HTML."""

import re

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


def test_each_figure_shows_as_inline_html_and_as_svg(notebook):
    for cell in notebook.cells:
        data, = [output["data"] for output in cell.outputs if output["output_type"] == "execute_result"]
        html, svg = data["text/html"], data["image/svg+xml"]
        assert html.startswith('<div class="attnviz-figure"><svg style="max-width:100%;height:auto" ')
        assert svg.startswith("<svg ") and "<title" in svg
        assert re.search(r'aria-labelledby="[^"]+-title ', html)


def test_nbconvert_html_keeps_the_labels(notebook):
    body, _ = HTMLExporter().from_notebook_node(notebook)
    figures = re.findall(r'<div class="attnviz-figure"><svg .*?</svg></div>', body, flags=re.S)
    assert len(figures) == 4 and "<img" not in "".join(figures)
    assert 'aria-label="Q(cat) K(cat) score 2, computed this step"' in figures[0]
    assert "<title" in figures[1] and "not computed yet" in figures[1]
    ids = re.findall(r' id="(attnviz-[^"]+)"', body)
    assert len(ids) == len(set(ids))  # every display has ids of its own
